/*
 * core/json_doc.h — cJSON documents parsed into an arena and dropped in one go.
 *
 * cJSON allocates every node, key and string on its own; freeing a page's
 * tree node by node cost as much again as the allocations (a cold resolve
 * of six projects: 48,000 mallocs and frees, glibc's consolidation on
 * top).  A document parsed here takes its nodes from an arena and is
 * released at once.
 *
 * cJSON's allocator is process-wide (cJSON_InitHooks), hence the contract:
 *  - ts_json_setup() installs the hooks, once, from main (cli/) before any
 *    thread starts, as ts_heap_setup does for the heap.  They allocate
 *    from the calling thread's document while ts_json_doc_parse runs, and
 *    are plain malloc/free at every other moment: every other use of
 *    cJSON (building and printing reports, trees freed with cJSON_Delete)
 *    is unchanged.
 *  - The one piece of process state here is that per-thread pointer,
 *    non-NULL only inside ts_json_doc_parse.
 *  - Without ts_json_setup (unit tests, fuzz targets) a document is an
 *    ordinary malloc'd tree; ts_json_doc_free frees either kind.
 *  - A document's tree is never given to cJSON_Delete, and no node moves
 *    between it and another tree.
 */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/arena.h"

struct ts_json_doc {
  cJSON *root;         /* NULL when the text did not parse */
  bool in_arena;       /* root's nodes live in arena */
  struct ts_arena arena;
};

/* Installs the allocation hooks (see above); main calls it once. */
void ts_json_setup(void);

/* Parses data[0..len) (need not be NUL-terminated) into doc, which the
 * caller releases with ts_json_doc_free whatever the outcome.  Returns
 * doc->root: NULL on malformed JSON (cJSON_GetErrorPtr tells where). */
cJSON *ts_json_doc_parse(struct ts_json_doc *doc, const char *data, size_t len);

/* Frees the tree and its arena; doc may be parsed into again. */
void ts_json_doc_free(struct ts_json_doc *doc);

/* Prints o unformatted, deletes it (an ordinary malloc'd tree, never a
 * document's), and returns the text as a string the caller frees with
 * free(): cJSON's own buffer may come from its hooks.  Aborts on OOM. */
char *ts_json_print_and_delete(cJSON *o);
