/* libFuzzer target: variant metadata JSON (both schemas), the label
 * splitter on the same bytes, and selection against a fixed host. */
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
  }
  ts_variant_metadata_clear(&m);
  return 0;
}
