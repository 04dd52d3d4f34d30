/* libFuzzer target: core metadata parsing. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep/metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct ts_metadata *md = NULL;
  struct ts_error err = {0};
  enum ts_code rc = ts_metadata_parse((const char *)data, size, &md, &err);
  if (rc != TS_OK) {
    if (md || !err.detail[0])
      abort();
    return 0;
  }
  if (!md->name || !md->version || !md->metadata_version || !md->normalized_name)
    abort();
  /* Every typed list entry came from a header of that name. */
  const char *v[1];
  if (ts_metadata_get_all(md, "Requires-Dist", v, 0) != md->nrequires_dist)
    abort();
  if (ts_metadata_get_all(md, "Provides-Extra", v, 0) != md->nprovides_extra)
    abort();
  for (size_t i = 0; i < md->nprovides_extra; i++)
    if (!ts_metadata_has_extra(md, md->provides_extra[i]))
      abort();
  for (size_t i = 0; i < md->nfields; i++)
    if (ts_metadata_get(md, md->fields[i].name) == NULL)
      abort();
  ts_metadata_free(md);
  return 0;
}
