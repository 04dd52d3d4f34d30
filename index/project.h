/*
 * index/project.h — what an index says about one project: the data contract
 * between the index client (which fills it from PEP 691 JSON, PEP 503 HTML,
 * find-links pages or directories) and the resolver (which reads it).
 *
 * Everything is owned by the `struct ts_index_project` and freed by
 * ts_index_project_clear.  Strings are NUL-terminated, already unescaped,
 * with URLs made absolute.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ts_index_file {
  char *filename;           /* "torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl" */
  char *url;                /* absolute; may carry credentials: redact before printing */
  char *sha256;             /* 64 lower-case hex digits, or NULL when the index gave none */
  char *requires_python;    /* data-requires-python / "requires-python", or NULL */
  bool yanked;
  char *yanked_reason;      /* NULL when none given */
  bool has_metadata;        /* PEP 658/714: a "<url>.metadata" file exists */
  char *metadata_sha256;    /* its sha256 when given, else NULL */
  int64_t size;             /* PEP 700, -1 when unknown */
  char *upload_time;        /* PEP 700 ISO 8601 string, or NULL */
  /* Where the file came from when it is not the project's index_url:
   * another index merged in by unsafe-best-match (index_url), or a
   * --find-links location (from_find_links, which is no index: a lock
   * records no index for it).  NULL / false in the common case. */
  char *index_url;
  bool from_find_links;
  /* PEP 825 variant wheels (a label in the file name): the place of this
   * file's label among its release's variants that this host may install
   * (0 = best; the null variant last), set by the caller before resolving
   * (plan/variants.c), which drops the variant wheels it did not judge
   * installable.  Not read for other files; never cached with the page. */
  long variant_rank;
};

struct ts_index_project {
  char *name;               /* PEP 503 normalised */
  char *index_url;          /* the index (or find-links location) it came from */
  struct ts_index_file *files;
  size_t nfiles;
};

void ts_index_project_clear(struct ts_index_project *p);
