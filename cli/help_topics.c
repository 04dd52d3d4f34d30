/* torchsolve help TOPIC: the texts that are not one command's --help. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/error.h"

static void topic_exit_codes(void) {
  printf("Exit status of torchsolve:\n"
         "  0    success (for 'check': the environment is clean)\n"
         "  1    resolution failed, install failed, or 'check' found problems;\n"
         "       also malformed input files and broken rules files; and a refusal\n"
         "       because this host cannot run what was asked, whether a rule of\n"
         "       rules.yaml refuses the build (the message names the rule id) or a\n"
         "       GPU override asks for more than the driver runs (--cuda 13.0 on\n"
         "       driver 550)\n"
         "  2    usage error: unknown option, bad value\n"
         "  3    network: unreachable index, HTTP error, TLS, timeout, offline miss\n"
         "  4    integrity: hash mismatch, broken or hostile wheel\n"
         "  5    a lock or build made for another machine: sync of a lock whose\n"
         "       recorded GPU facts this host cannot run (see --ignore-host)\n"
         "  6    another torchsolve holds the environment's lock\n"
         "  8    interrupted; the environment was left as it was\n"
         "  70   internal error (a bug: please report it)\n\n"
         "Error codes and their hints:\n");
  for (int c = 1; c < TS_CODE_COUNT; c++)
    printf("  %-18s exit %-3d %s\n", ts_code_name((enum ts_code)c),
           ts_code_exit_status((enum ts_code)c), ts_code_hint((enum ts_code)c));
}

static void topic_environment(void) {
  printf(
      "Environment variables read by torchsolve:\n"
      "  TORCHSOLVE_CACHE_DIR      cache root (else $XDG_CACHE_HOME/torchsolve,\n"
      "                            else ~/.cache/torchsolve)\n"
      "  XDG_CONFIG_HOME           user rules file: $XDG_CONFIG_HOME/torchsolve/rules.yaml\n"
      "  XDG_DATA_HOME             data folder: $XDG_DATA_HOME/torchsolve (else\n"
      "                            ~/.local/share/torchsolve), where `rules update` keeps rules\n"
      "  TORCHSOLVE_PYTHON         target interpreter or venv when --python is not\n"
      "                            given (before VIRTUAL_ENV and ./.venv)\n"
      "  VIRTUAL_ENV               target environment when neither is given\n"
      "  TORCHSOLVE_INDEX_URL, TORCHSOLVE_TORCH_INDEX_URL, TORCHSOLVE_INDEX_STRATEGY,\n"
      "  TORCHSOLVE_CONCURRENCY    the same as --index-url, --torch-index-url, ...\n"
      "  TORCHSOLVE_EXTRA_INDEX_URL, TORCHSOLVE_FIND_LINKS\n"
      "                            lists separated by whitespace, as pip's\n"
      "  TORCHSOLVE_OFFLINE, TORCHSOLVE_NO_CACHE\n"
      "                            1, true, yes or on: as --offline, --no-cache\n"
      "  TORCHSOLVE_LINK_MODE      as --link-mode (hardlink, copy, clone)\n"
      "  TORCHSOLVE_CUDA, TORCHSOLVE_CUDA_DRIVER, TORCHSOLVE_COMPUTE_CAPABILITY,\n"
      "  TORCHSOLVE_ROCM, TORCHSOLVE_GFX, TORCHSOLVE_SYSROOT, TORCHSOLVE_RULES\n"
      "                            the same as --cuda, --cuda-driver, ...\n"
      "  TORCHSOLVE_WITHOUT_RULES  rule ids or patterns to drop, comma-separated\n"
      "                            (as --without-rule)\n"
      "  TORCHSOLVE_BUNDLED_RULES  use this file instead of the installed rules.yaml\n"
      "  TORCHSOLVE_PEP517_RUNNER  use this PEP 517 hook runner instead of the installed one\n"
      "  TORCHSOLVE_SEED_WHEELS    directory with the pip wheel for 'venv --seed'\n"
      "                            (default /usr/share/python-wheels)\n"
      "  ROCM_PATH                 ROCm installation to read (default /opt/rocm)\n"
      "  NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION, NV_VARIANT_PROVIDER_FORCE_SM_ARCH,\n"
      "  AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH, AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION\n"
      "                            what the PEP 825 providers see (help variants)\n"
      "  HSA_OVERRIDE_GFX_VERSION  honoured as ROCm does (11.0.0 = gfx1100)\n"
      "  SSL_CERT_FILE             extra CA bundle (as --cert)\n"
      "  http_proxy, https_proxy, all_proxy, no_proxy (or upper case)  proxies\n"
      "  NO_COLOR                  set and non-empty: no colour in messages\n"
      "A flag, or an index line of a requirements file, beats its variable.\n");
}

static void topic_gpu(void) {
  printf(
      "How torchsolve chooses the torch build:\n"
      "  'torchsolve detect' shows the facts (NVIDIA driver and the CUDA it\n"
      "  supports, each GPU's compute capability, ROCm version and gfx targets,\n"
      "  Intel XPU, glibc) and the variants usable on this host, best first.\n"
      "  install/lock pick the newest torch whose variant the driver can run,\n"
      "  that carries kernels for every GPU, and that passes every rule of\n"
      "  rules.yaml; among equals the newest CUDA or ROCm variant; CPU when no\n"
      "  GPU build fits (saying why). torchvision and torchaudio follow torch.\n"
      "  Override facts with --cuda X.Y, --cuda-driver V, --compute-capability,\n"
      "  --rocm X.Y, --gfx, --cpu, --xpu; build for another machine with\n"
      "  --ignore-host (facts given with it describe that machine). Name a\n"
      "  build with --torch-backend cu126 or a PyTorch index URL (-i\n"
      "  https://mirror/whl/cu126): that build, from that server, and on a\n"
      "  host without such a GPU it is taken unchecked, with a note. An\n"
      "  installed torch the facts rule out is replaced; a switch of builds\n"
      "  removes what it orphaned. AMD: a +rocmX.Y wheel bundles ROCm's user space and\n"
      "  runs on the kernel driver of ROCm X.Y +/- 2 releases (AMD's support\n"
      "  matrix); the driver's release is read from the DKMS amdgpu module, else\n"
      "  the installed ROCm stands in, and --rocm X.Y sets it. aarch64 hosts\n"
      "  have their own variants and arch lists. Drop a rule with\n"
      "  --without-rule ID. See doc/rules.md for the rules.yaml schema and\n"
      "  doc/gpu-grid.md for the choice on each driver/GPU and ROCm/gfx cell.\n"
      "  One lock for several GPU machines: 'lock --profile cpu --profile cu126\n"
      "  --profile rocm6.4:gfx=gfx942' resolves each as install would there;\n"
      "  'sync' then installs the best profile the host runs, in the order\n"
      "  above, and 'sync --profile NAME --ignore-host' builds an image for one.\n"
      "  PEP 825 variant wheels: see 'torchsolve help variants'.\n");
}

static void topic_variants(void) {
  printf(
      "PEP 825 wheel variants (torch-2.10.0-...-cuda12.8.whl):\n"
      "  A page with variant wheels lists NAME-VERSION-variants.json (PEP 825\n"
      "  v0.1 or variantlib v0.0.3), fetched hash-checked and cached; without it\n"
      "  each wheel's dist-info/variant.json is read by range requests. torchsolve\n"
      "  computes what the providers would report from its own host facts (no\n"
      "  plugin is run): nvidia cuda_version_lower_bound/upper_bound from the\n"
      "  driver's CUDA and sm_arch of every GPU, amd gfx_arch and rocm_version,\n"
      "  x86_64 level from the CPU flags, aarch64 version and features from the\n"
      "  cpuinfo Features line, static-properties from the file.\n"
      "  A variant is a candidate when each of its features has a supported\n"
      "  value and rules.yaml accepts its PyTorch twin (cuda12.8 = cu128, null =\n"
      "  cpu); the best by PEP 825's priorities wins, then the null variant, then\n"
      "  a wheel without a label; ties go to the newest CUDA that runs here.\n"
      "  --torch-index-url BASE also reads BASE/variant/. install --dry-run shows\n"
      "  '[label]' and why; detect --json lists variant_properties; list, freeze\n"
      "  and show name an installed variant's label. lock (--universal, --profile\n"
      "  too) lists every variant wheel and the variants.json; sync chooses per\n"
      "  host, sync --profile NAME for that profile's machine.\n"
      "  NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION,\n"
      "  NV_VARIANT_PROVIDER_FORCE_SM_ARCH, AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH and\n"
      "  AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION replace detected facts, as in the\n"
      "  providers. See doc/variants.md.\n");
}

static const struct {
  const char *name;
  void (*print)(void);
  const char *summary;
} topics[] = {
    {"exit-codes", topic_exit_codes, "exit statuses and error codes"},
    {"environment", topic_environment, "environment variables"},
    {"gpu", topic_gpu, "how the torch build is chosen"},
    {"variants", topic_variants, "PEP 825 wheel variants"},
};

int ts_cli_help_topic(const char *name) {
  for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
    if (strcmp(topics[i].name, name) == 0) {
      topics[i].print();
      return 1;
    }
  return 0;
}

void ts_cli_help_topics_list(FILE *out) {
  fprintf(out, "\nhelp topics ('torchsolve help TOPIC'):\n");
  for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
    fprintf(out, "  %-12s %s\n", topics[i].name, topics[i].summary);
}
