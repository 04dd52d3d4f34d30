/*
 * toml/chars.h — TOML's character classes and short escapes, one
 * definition for the reader (toml.c) and the writer (write.c); internal to
 * toml/.
 */
#pragma once

#include <stdbool.h>

/* Whether c may appear in a bare key: A-Z a-z 0-9 _ -. */
bool ts_toml_is_bare(int c);

/* The byte "\\<letter>" stands for, 0 when it is no short escape. */
char ts_toml_unescaped(int letter);

/* The letter that escapes byte c, 0 when it has no short escape. */
char ts_toml_escape_letter(char c);
