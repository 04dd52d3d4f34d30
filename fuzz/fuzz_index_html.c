/* libFuzzer target: PEP 503 HTML pages, flat find-links pages and index
 * roots (the project list, PEP 503 HTML and PEP 691 JSON). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "index/simple.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The page URL's password must not appear in a message unless the page
 * itself contained it (messages may quote a bad link). */
static int leaks(const char *detail, const uint8_t *data, size_t size) {
  static const char secret[] = "S3cr3tPw";
  return strstr(detail, secret) && !memmem(data, size, secret, sizeof secret - 1);
}

static void check(const struct ts_index_project *p) {
  /* Invariants the resolver relies on. */
  for (size_t i = 0; i < p->nfiles; i++) {
    const struct ts_index_file *f = &p->files[i];
    if (!f->filename || !f->filename[0] || !f->url || strchr(f->url, '#'))
      abort();
    if (f->sha256 && strlen(f->sha256) != 64)
      abort();
    if (f->metadata_sha256 && !f->has_metadata)
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ts_index_project p;
  struct ts_error err = {0};
  if (ts_index_parse_html((const char *)data, size, "https://user:S3cr3tPw@h.example/simple/pkg/", "pkg",
                          &p, &err) == TS_OK) {
    check(&p);
    ts_index_project_clear(&p);
  } else if (leaks(err.detail, data, size)) {
    abort(); /* credentials must never reach a message */
  }
  if (ts_index_parse_flat((const char *)data, size, "file:///srv/flat.html", "pkg", &p, &err) ==
      TS_OK) {
    check(&p);
    ts_index_project_clear(&p);
  }
  for (int json = 0; json < 2; json++) {
    char **names = NULL;
    size_t n = 0;
    if (ts_index_parse_project_list((const char *)data, size, json, &names, &n, &err) != TS_OK &&
        (n || names))
      abort(); /* a failure leaves nothing to free */
    for (size_t i = 0; i < n; i++) {
      if (!names[i][0]) /* blank anchors are skipped */
        abort();
      free(names[i]);
    }
    free(names);
  }
  return 0;
}
