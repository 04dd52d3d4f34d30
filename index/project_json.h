/*
 * index/project_json.h — a fetched project as JSON for `torchsolve index
 * fetch --json`: its name, the redacted index URL and its files in PEP 691's
 * shape (yanked is the reason or true, never "").
 */
#pragma once

#include <cjson/cJSON.h>

#include "index/project.h"

/* A new object, the caller's (cJSON_Delete). */
cJSON *ts_index_project_json(const struct ts_index_project *p);
