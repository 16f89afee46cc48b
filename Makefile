# Build and install Outbox from source (docs/install.md).
#
#   make                                  the release binary, Swift runtime linked in (Linux)
#   sudo make install [PREFIX=/usr/local] the binary, man page, completions, docs
#   sudo make uninstall [PREFIX=...]      removes exactly what install put there
#   make deb                              dist/outbox_VERSION_ARCH.deb (scripts/package-deb)
#
# DESTDIR is put before every installed path (staging, packaging). OUTBOX names
# the binary to install (default: the one `make` builds); `install` only copies
# and never builds, so `sudo make install` leaves no root-owned files in .build.
# This file is the one list of what is installed: scripts/package-deb stages the
# .deb with `make install PREFIX=/usr ZSHDIR=/usr/share/zsh/vendor-completions`.

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man/man1
DOCDIR  ?= $(PREFIX)/share/doc/outbox
# Where each shell looks for completions under PREFIX (zsh's fpath has
# site-functions; Debian packages use vendor-completions).
BASHDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHDIR ?= $(PREFIX)/share/fish/vendor_completions.d

SWIFT   ?= swift
# The Swift runtime inside the binary on Linux; macOS has it in the system.
STATIC  ?= $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib)
OUTBOX  ?= .build/release/outbox
STRIP   ?= strip
INSTALL ?= install

# What goes to DOCDIR, laid out as in the repository so the README's links hold:
# the user's documentation, the examples (with their sub-folders), the shipped
# themes and profiles to start your own from, and the copyright file.
TOPDOCS  = README.md packaging/copyright
DOCS     = docs/guide.md docs/scenarios.md docs/profiles.md docs/rules.md docs/keys.md \
           docs/differences.md docs/real-sdks.md docs/storage.md docs/install.md
EXAMPLES = $(shell find examples -type f | LC_ALL=C sort)
THEMES   = $(wildcard themes/*.theme)
PROFILES = $(wildcard profiles/*.profile)
REAL     = $(wildcard profiles/real/*.profile)

.PHONY: all build install uninstall deb check-platform

all: build

build:
	$(SWIFT) build -c release $(STATIC) --product outbox

install:
	@test -x "$(OUTBOX)" || { echo "make install: no binary at $(OUTBOX); run \`make\` first (or give OUTBOX=PATH)" >&2; exit 2; }
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)" "$(DESTDIR)$(BASHDIR)" \
	  "$(DESTDIR)$(ZSHDIR)" "$(DESTDIR)$(FISHDIR)" "$(DESTDIR)$(DOCDIR)/docs" \
	  "$(DESTDIR)$(DOCDIR)/themes" "$(DESTDIR)$(DOCDIR)/profiles" "$(DESTDIR)$(DOCDIR)/profiles/real"
	$(INSTALL) -m 755 "$(OUTBOX)" "$(DESTDIR)$(BINDIR)/outbox"
	$(STRIP) "$(DESTDIR)$(BINDIR)/outbox"
	gzip -9n < docs/outbox.1 > "$(DESTDIR)$(MANDIR)/outbox.1.gz"
	chmod 644 "$(DESTDIR)$(MANDIR)/outbox.1.gz"
	"$(OUTBOX)" --generate-completion-script bash > "$(DESTDIR)$(BASHDIR)/outbox"
	"$(OUTBOX)" --generate-completion-script zsh > "$(DESTDIR)$(ZSHDIR)/_outbox"
	"$(OUTBOX)" --generate-completion-script fish > "$(DESTDIR)$(FISHDIR)/outbox.fish"
	chmod 644 "$(DESTDIR)$(BASHDIR)/outbox" "$(DESTDIR)$(ZSHDIR)/_outbox" "$(DESTDIR)$(FISHDIR)/outbox.fish"
	$(INSTALL) -m 644 $(TOPDOCS) "$(DESTDIR)$(DOCDIR)/"
	$(INSTALL) -m 644 $(DOCS) "$(DESTDIR)$(DOCDIR)/docs/"
	$(INSTALL) -m 644 $(THEMES) "$(DESTDIR)$(DOCDIR)/themes/"
	$(INSTALL) -m 644 $(PROFILES) "$(DESTDIR)$(DOCDIR)/profiles/"
	$(INSTALL) -m 644 $(REAL) "$(DESTDIR)$(DOCDIR)/profiles/real/"
	@for f in $(EXAMPLES); do \
	  $(INSTALL) -d "$(DESTDIR)$(DOCDIR)/$$(dirname "$$f")" && \
	  $(INSTALL) -m 644 "$$f" "$(DESTDIR)$(DOCDIR)/$$f" || exit 1; \
	done

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/outbox" "$(DESTDIR)$(MANDIR)/outbox.1.gz" "$(DESTDIR)$(BASHDIR)/outbox" \
	  "$(DESTDIR)$(ZSHDIR)/_outbox" "$(DESTDIR)$(FISHDIR)/outbox.fish"
	rm -rf "$(DESTDIR)$(DOCDIR)"

deb:
	scripts/package-deb

check-platform:
	scripts/check-platform
