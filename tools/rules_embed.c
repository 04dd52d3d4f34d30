/*
 * rules_embed — the build-time half of rules/builtin.h: parses a rules
 * file with ts_rules_parse (the run-time parser and validator) and writes
 * a C file defining `ts_rules_bundled`: the file's bytes and their parse
 * in the bytes of rules/rules_codec.h.  A file that does not validate
 * fails the build with the parser's message.
 *
 *   rules_embed RULES.YAML OUT.c
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/fs.h"
#include "rules/rules.h"
#include "rules/rules_codec.h"

static void put_array(FILE *f, const char *name, const unsigned char *p, size_t n) {
  fprintf(f, "static const unsigned char %s[%zu] = {", name, n ? n : 1);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s%u,", i % 20 ? "" : "\n  ", p[i]);
  fprintf(f, "%s\n};\n", n ? "" : "0");
}

static int write_c(const char *out, const char *src, const struct ts_buf *yaml,
                   const struct ts_buf *parsed) {
  FILE *f = fopen(out, "w");
  if (!f) {
    perror(out);
    return 1;
  }
  fprintf(f, "/* Generated at build time by tools/rules_embed.c from %s:\n"
             " * its bytes and their parse (rules/builtin.h).  Do not edit. */\n"
             "#include \"rules/builtin.h\"\n\n", src);
  put_array(f, "source", (const unsigned char *)yaml->data, yaml->len);
  put_array(f, "parsed", (const unsigned char *)parsed->data, parsed->len);
  fprintf(f, "\nconst struct ts_rules_builtin ts_rules_bundled = {\n"
             "    source, %zu, parsed, %zu};\n", yaml->len, parsed->len);
  if (fclose(f) != 0) {
    perror(out);
    remove(out);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: rules_embed RULES.YAML OUT.c\n");
    return 2;
  }
  struct ts_error err = {0};
  struct ts_buf yaml, parsed;
  ts_buf_init(&yaml, TS_CAP_RULES_FILE);
  ts_buf_init(&parsed, 0);
  struct ts_rules *r = NULL;
  int status = 1;
  if (ts_fs_read_file(argv[1], &yaml, &err) != TS_OK ||
      ts_rules_parse(yaml.data, yaml.len, argv[1], &r, NULL, &err) != TS_OK ||
      ts_rules_encode(r, &parsed) != TS_OK)
    fprintf(stderr, "rules_embed: %s: %s\n", argv[1], err.detail[0] ? err.detail : "cannot encode");
  else
    status = write_c(argv[2], argv[1], &yaml, &parsed);
  ts_rules_free(r);
  ts_buf_clear(&yaml);
  ts_buf_clear(&parsed);
  return status;
}
