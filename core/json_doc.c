/* cJSON documents in an arena: see json_doc.h. */
#include "core/json_doc.h"

#include "core/alloc.h"
#include "core/str.h"

#include <stdlib.h>
#include <string.h>

/* The document being parsed on this thread (json_doc.h: the one piece of
 * process state, set only inside ts_json_doc_parse). */
static _Thread_local struct ts_arena *parsing;

static void *hook_malloc(size_t n) { return parsing ? ts_arena_alloc(parsing, n) : malloc(n); }

/* Inside a parse, cJSON frees only nodes of the tree it is building (on
 * a syntax error): they go with the arena. */
static void hook_free(void *p) {
  if (!parsing)
    free(p);
}

void ts_json_setup(void) {
  cJSON_Hooks hooks = {.malloc_fn = hook_malloc, .free_fn = hook_free};
  cJSON_InitHooks(&hooks);
}

cJSON *ts_json_doc_parse(struct ts_json_doc *doc, const char *data, size_t len) {
  memset(doc, 0, sizeof *doc);
  ts_arena_init(&doc->arena);
  parsing = &doc->arena;
  doc->root = cJSON_ParseWithLength(data, len);
  parsing = NULL;
  /* Nothing taken from the arena: the hooks are not installed (or the
   * text failed before its first node), so the tree is cJSON's own. */
  doc->in_arena = doc->arena.used > 0;
  return doc->root;
}

void ts_json_doc_free(struct ts_json_doc *doc) {
  if (doc->root && !doc->in_arena)
    cJSON_Delete(doc->root);
  ts_arena_clear(&doc->arena);
  doc->root = NULL;
  doc->in_arena = false;
}

char *ts_json_print_and_delete(cJSON *o) {
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  if (!s)
    abort();
  char *copy = ts_xstrdup(s);
  cJSON_free(s);
  return copy;
}
