/* libFuzzer target: PEP 691 JSON project pages. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_doc.h"
#include "index/simple.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Pages parse into an arena, as in the program (main's ts_json_setup). */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  ts_json_setup();
  return 0;
}

/* The page URL's password must not appear in a message unless the page
 * itself contained it (messages may quote a bad link). */
static int leaks(const char *detail, const uint8_t *data, size_t size) {
  static const char secret[] = "S3cr3tPw";
  return strstr(detail, secret) && !memmem(data, size, secret, sizeof secret - 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ts_index_project p;
  struct ts_error err = {0};
  if (ts_index_parse_json((const char *)data, size, "https://user:S3cr3tPw@h.example/simple/pkg/", "pkg",
                          &p, &err) != TS_OK) {
    if (leaks(err.detail, data, size))
      abort();
    return 0;
  }
  for (size_t i = 0; i < p.nfiles; i++) {
    const struct ts_index_file *f = &p.files[i];
    if (!f->filename || !f->url || strchr(f->filename, '/') || strchr(f->url, '#'))
      abort();
    if (f->sha256 && strlen(f->sha256) != 64)
      abort();
  }
  ts_index_project_clear(&p);
  return 0;
}
