/*
 * index/page_file.h — a saved project page parsed from a local file, timed:
 * what `torchsolve index parse` measures the Simple API parsers with.
 * PEP 691 JSON when the file name ends in ".json", else PEP 503 HTML.
 */
#pragma once

#include <stdint.h>

#include "core/error.h"

struct ts_index_page_parse {
  size_t nfiles;     /* files on the page (one parse) */
  uint64_t bytes;    /* bytes parsed over every repetition */
  uint64_t files;    /* files found over every repetition */
  double seconds;    /* time spent in the parser alone */
};

/* Reads path and parses it `repeat` times (at least once), adding to *acc
 * (which the caller zeroes once for a run over several files).  page_url
 * is what relative links resolve against (NULL: a placeholder project
 * URL).  acc->nfiles is the number of files the page lists. */
enum ts_code ts_index_parse_page_file(const char *path, const char *page_url, long repeat,
                                      struct ts_index_page_parse *acc, struct ts_error *err);
