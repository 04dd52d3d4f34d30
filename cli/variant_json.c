/*
 * cli/variant_json.c — the host's PEP 825 properties as detect --json
 * prints them (gpu_options.h).
 */
#include <cjson/cJSON.h>

#include "cli/gpu_options.h"
#include "variant/provider.h"

cJSON *ts_gpu_variant_properties_json(const struct ts_host *h, struct ts_error *err) {
  struct ts_variant_force force;
  ts_gpu_variant_force(&force);
  struct ts_variant_supported s;
  if (ts_variant_supported_from_host(h, &force, &s, err) != TS_OK) {
    ts_variant_supported_clear(&s);
    return cJSON_CreateNull();
  }
  cJSON *o = cJSON_CreateObject();
  for (size_t i = 0; i < s.nfeatures; i++) {
    const struct ts_variant_feature *f = &s.features[i];
    cJSON *ns = cJSON_GetObjectItemCaseSensitive(o, f->ns);
    if (!ns)
      ns = cJSON_AddObjectToObject(o, f->ns);
    cJSON *values = cJSON_AddArrayToObject(ns, f->feature);
    for (size_t v = 0; v < f->nvalues; v++)
      cJSON_AddItemToArray(values, cJSON_CreateString(f->values[v]));
  }
  ts_variant_supported_clear(&s);
  return o;
}
