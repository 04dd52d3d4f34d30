/* libFuzzer target: rules files (hand-written, but --rules FILE and the
 * config directory make them user input).  Parses with diagnostics; a
 * document that loads is also compiled against a fixed host and checked
 * against a fixed installed set, so the compiler and the evaluator see
 * whatever the loader accepts. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "host/host.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ts_rules *r = NULL;
  struct ts_rules_diags d = {0};
  struct ts_error err = {0};
  if (ts_rules_parse((const char *)data, size, "fuzz.yaml", &r, &d, &err) ==
      TS_OK) {
    struct ts_host h;
    memset(&h, 0, sizeof h);
    struct ts_host_overrides ov = {.cuda_driver = "550.144.03",
                                   .compute_capabilities = "8.6,6.1",
                                   .rocm = TS_HOST_SET, .rocm_version = "6.2",
                                   .gfx = "gfx1100"};
    struct ts_constraint_set s;
    if (ts_host_apply_overrides(&h, &ov, &err) == TS_OK &&
        ts_rules_compile(r, &h, NULL, &s, &err) == TS_OK) {
      struct ts_installed pk[] = {{"torch", "2.5.1+rocm6.2"},
                                  {"torchvision", "0.20.1+cu124"},
                                  {"transformers", "4.40.0"}};
      struct ts_rules_finding *f = NULL;
      size_t nf = 0;
      if (ts_rules_check_installed(&s, pk, 3, &f, &nf, &err) == TS_OK)
        ts_rules_findings_free(f, nf);
      ts_constraint_set_clear(&s);
    }
    ts_host_clear(&h);
    ts_rules_free(r);
  }
  ts_rules_diags_clear(&d);
  return 0;
}
