/* TOML's character classes and short escapes; see chars.h. */
#include "toml/chars.h"

#include <stddef.h>

/* The short escapes: the letter after the backslash and the byte it
 * stands for. */
static const char short_escapes[][2] = {
    {'b', '\b'}, {'t', '\t'}, {'n', '\n'}, {'f', '\f'}, {'r', '\r'}, {'"', '"'}, {'\\', '\\'},
};

bool ts_toml_is_bare(int c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-';
}

char ts_toml_unescaped(int letter) {
  for (size_t i = 0; i < sizeof short_escapes / sizeof short_escapes[0]; i++)
    if (short_escapes[i][0] == letter)
      return short_escapes[i][1];
  return 0;
}

char ts_toml_escape_letter(char c) {
  for (size_t i = 0; i < sizeof short_escapes / sizeof short_escapes[0]; i++)
    if (short_escapes[i][1] == c)
      return short_escapes[i][0];
  return 0;
}
