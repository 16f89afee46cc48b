profile a
"