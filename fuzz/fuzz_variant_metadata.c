/* libFuzzer target: variant metadata JSON (both schemas), the label
 * splitter on the same bytes, selection against a fixed host, and the
 * merge of per-wheel variant.json files. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "variant/label.h"
#include "variant/metadata.h"
#include "variant/select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *plain = NULL, *label = NULL;
  struct ts_error err = {0};
  if (ts_variant_split_filename((const char *)data, size, &plain, &label, &err) == TS_OK) {
    if (!plain || (label && !ts_variant_label_valid(label, strlen(label))))
      abort();
  }
  free(plain);
  free(label);

  struct ts_variant_metadata m;
  if (ts_variant_metadata_parse((const char *)data, size, "fuzz", &m, &err) == TS_OK) {
    struct ts_host_cuda_gpu gpu = {.compute_capability = "8.9"};
    struct ts_host_rocm_gpu agpu = {.gfx = "gfx1100"};
    struct ts_host h = {.machine = "x86_64", .cuda_version = "12.8", .cuda_gpus = &gpu,
                        .ncuda_gpus = 1, .rocm_version = "7.1.0", .rocm_gpus = &agpu,
                        .nrocm_gpus = 1, .cpu_flags = "cx16 popcnt"};
    struct ts_variant_supported sup;
    if (ts_variant_supported_from_host(&h, NULL, &sup, &err) != TS_OK)
      abort();
    struct ts_variant_selection sel;
    ts_variant_select(&m, &sup, NULL, &sel);
    if (sel.nchoices != m.nvariants || sel.ncompatible > sel.nchoices)
      abort();
    for (size_t i = 0; i < sel.nchoices; i++)
      if (!sel.choices[i].why)
        abort();
    ts_variant_selection_clear(&sel);
    ts_variant_supported_clear(&sup);
    /* the same file as two wheels' variant.json, each narrowed to one
     * label, gathered into one release (plan/variant_wheels.h) */
    struct ts_variant_metadata one = {0};
    if (m.nvariants && ts_variant_metadata_parse((const char *)data, size, "fuzz", &one, &err) == TS_OK) {
      char *last = strdup(m.variants[m.nvariants - 1].label);
      size_t want = m.nvariants > 1 ? 2 : 1;
      if (!last || !ts_variant_metadata_keep_only(&one, last) ||
          !ts_variant_metadata_keep_only(&m, m.variants[0].label))
        abort();
      ts_variant_metadata_adopt(&m, &one);
      if (m.nvariants != want || !ts_variant_metadata_find(&m, last))
        abort();
      free(last);
    }
    ts_variant_metadata_clear(&one);
  }
  ts_variant_metadata_clear(&m);
  return 0;
}
