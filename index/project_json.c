/* index/project_json.c — see project_json.h. */
#include "index/project_json.h"

#include <stdlib.h>

#include "index/url.h"

static cJSON *file_json(const struct ts_index_file *f) {
  cJSON *o = cJSON_CreateObject();
  char *u = ts_url_redact(f->url);
  cJSON_AddStringToObject(o, "filename", f->filename);
  cJSON_AddStringToObject(o, "url", u);
  free(u);
  if (f->sha256)
    cJSON_AddStringToObject(o, "sha256", f->sha256);
  else
    cJSON_AddNullToObject(o, "sha256");
  if (f->requires_python)
    cJSON_AddStringToObject(o, "requires_python", f->requires_python);
  else
    cJSON_AddNullToObject(o, "requires_python");
  /* PEP 691: the reason, or true; never "" (falsy for most readers) */
  if (f->yanked && f->yanked_reason && f->yanked_reason[0])
    cJSON_AddStringToObject(o, "yanked", f->yanked_reason);
  else if (f->yanked)
    cJSON_AddTrueToObject(o, "yanked");
  else
    cJSON_AddFalseToObject(o, "yanked");
  cJSON_AddBoolToObject(o, "has_metadata", f->has_metadata);
  if (f->metadata_sha256)
    cJSON_AddStringToObject(o, "metadata_sha256", f->metadata_sha256);
  if (f->size >= 0)
    cJSON_AddNumberToObject(o, "size", (double)f->size);
  if (f->upload_time)
    cJSON_AddStringToObject(o, "upload_time", f->upload_time);
  return o;
}

cJSON *ts_index_project_json(const struct ts_index_project *p) {
  cJSON *o = cJSON_CreateObject();
  char *iu = ts_url_redact(p->index_url);
  cJSON_AddStringToObject(o, "name", p->name);
  cJSON_AddStringToObject(o, "index", iu);
  free(iu);
  cJSON *fs = cJSON_AddArrayToObject(o, "files");
  for (size_t k = 0; k < p->nfiles; k++)
    cJSON_AddItemToArray(fs, file_json(&p->files[k]));
  return o;
}
