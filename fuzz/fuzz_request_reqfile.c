/* libFuzzer target: pip requirements files, without touching the file
 * system or the environment.  The input is split at NUL bytes into the
 * files r.txt, a.txt, b.txt, sub/c.txt, d.txt; includes between them are
 * served from memory by the reader callback. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "request/reqfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NFILES 5
static const char *const names[NFILES] = {"r.txt", "a.txt", "b.txt",
                                          "sub/c.txt", "d.txt"};

struct memfs {
  const char *data[NFILES];
  size_t len[NFILES];
};

static enum ts_code mem_read(void *ctx, const char *path, char **out,
                             size_t *len, struct ts_error *err) {
  struct memfs *fs = ctx;
  for (size_t i = 0; i < NFILES; i++) {
    if (strcmp(names[i], path) == 0 && fs->data[i]) {
      *out = malloc(fs->len[i] + 1);
      if (!*out)
        return ts_error_set(err, TS_E_NOMEM, "out of memory");
      memcpy(*out, fs->data[i], fs->len[i]);
      (*out)[fs->len[i]] = '\0';
      *len = fs->len[i];
      return TS_OK;
    }
  }
  return ts_error_set(err, TS_E_NOT_FOUND, "no such file");
}

/* "sub" and "./sub" are directories; nothing else is. */
static bool mem_is_dir(void *ctx, const char *path) {
  (void)ctx;
  return strcmp(path, "sub") == 0 || strcmp(path, "./sub") == 0;
}

static const char *fake_env(void *ctx, const char *name) {
  (void)ctx;
  return strcmp(name, "A") == 0 ? "x${A}y" : strcmp(name, "IDX") == 0
                                                 ? "https://h/simple"
                                                 : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct memfs fs = {{0}, {0}};
  const char *p = (const char *)data, *end = p + size;
  for (size_t i = 0; i < NFILES && p <= end; i++) {
    const char *nul = memchr(p, '\0', (size_t)(end - p));
    const char *stop = nul ? nul : end;
    fs.data[i] = p;
    fs.len[i] = (size_t)(stop - p);
    if (!nul)
      break;
    p = nul + 1;
  }
  struct ts_reqfile_reader reader = {mem_read, mem_is_dir, &fs};
  struct ts_reqfile_opts opts = {.reader = &reader, .getenv = fake_env};
  struct ts_reqfile rf;
  ts_reqfile_init(&rf);
  struct ts_error err = {0};
  if (ts_reqfile_add_file(&rf, "r.txt", false, &opts, &err) == TS_OK) {
    for (size_t i = 0; i < rf.nentries; i++) {
      const struct ts_reqfile_entry *e = &rf.entries[i];
      if (!e->text || !e->file || !e->line)
        abort();
      if (e->kind == TS_REQFILE_NAMED && (!e->req || !e->name))
        abort();
      if (e->kind == TS_REQFILE_URL && !e->url)
        abort();
      if (e->kind == TS_REQFILE_PATH && !e->path)
        abort();
      if (e->is_constraint && !e->name)
        abort();
    }
  } else if (err.detail[0] == '\0') {
    abort(); /* every failure says what went wrong */
  }
  ts_reqfile_clear(&rf);
  /* the single-requirement entry point on the first file as one line */
  struct ts_reqfile_entry e;
  if (ts_reqfile_parse_requirement(fs.data[0] ? fs.data[0] : "", fs.len[0],
                                   &opts, &e, NULL) == TS_OK)
    ts_reqfile_entry_clear(&e);
  return 0;
}
