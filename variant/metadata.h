/*
 * variant/metadata.h — variant metadata: `{name}-{version}-variants.json`
 * from an index page, or a wheel's `*.dist-info/variant.json`.  Two
 * schemas are read:
 *
 *  - PEP 825 v0.1 ("$schema" .../peps/825/v0.1.x.json): `default-priorities`
 *    with `namespace` only, and `variants` (label → namespace → feature →
 *    values);
 *  - variantlib v0.0.3, as PyTorch's `whl/variant/` index ships it
 *    (".../v0.0.x.json", or no "$schema" but a `providers` table): the
 *    same plus `default-priorities.feature` (namespace → features) and
 *    `.property` (namespace → feature → values), `providers` (whether a
 *    namespace is found at install time or given statically, optional or
 *    not) and `static-properties` (namespace → feature → values).
 *
 * Any other "$schema" version is TS_E_UNSUPPORTED (the caller skips that
 * project's variant wheels with a warning); anything malformed is
 * TS_E_PARSE naming what, never a crash.  Pure: no I/O.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

enum ts_variant_schema {
  TS_VARIANT_SCHEMA_PEP825 = 0, /* v0.1.x */
  TS_VARIANT_SCHEMA_VARIANTLIB, /* v0.0.x */
};

/* One feature of one namespace with its values, in the file's order. */
struct ts_variant_feature {
  char *ns;
  char *feature;
  char **values;
  size_t nvalues;
};

/* A variant: its label and its properties (features sorted by namespace,
 * then feature).  The null variant has none. */
struct ts_variant_entry {
  char *label;
  struct ts_variant_feature *features;
  size_t nfeatures;
};

struct ts_variant_provider_info {
  char *ns;
  bool install_time; /* false: its properties are static-properties */
  bool optional;     /* only used when enabled explicitly (never here) */
};

struct ts_variant_metadata {
  enum ts_variant_schema schema;
  char *schema_url;                  /* as given, or NULL */
  char **namespaces;                 /* default-priorities.namespace, in order */
  size_t nnamespaces;
  /* variantlib only: feature priorities (values empty) and property
   * priorities (values in order), per namespace and feature */
  struct ts_variant_feature *feature_priority;
  size_t nfeature_priority;
  struct ts_variant_feature *property_priority;
  size_t nproperty_priority;
  struct ts_variant_provider_info *providers;
  size_t nproviders;
  struct ts_variant_feature *static_properties;
  size_t nstatic_properties;
  struct ts_variant_entry *variants; /* sorted by label */
  size_t nvariants;
};

/* Reads data[0..len) into *out (zeroed first).  `what` names the file in
 * errors ("torch-2.10.0-variants.json").  Caller clears *out with
 * ts_variant_metadata_clear, also after a failure. */
enum ts_code ts_variant_metadata_parse(const char *data, size_t len, const char *what,
                                       struct ts_variant_metadata *out,
                                       struct ts_error *err);
void ts_variant_metadata_clear(struct ts_variant_metadata *m);

/* The entry of a label, or NULL. */
const struct ts_variant_entry *ts_variant_metadata_find(const struct ts_variant_metadata *m,
                                                        const char *label);
/* The provider entry of a namespace, or NULL (PEP 825 files have none). */
const struct ts_variant_provider_info *
ts_variant_metadata_provider(const struct ts_variant_metadata *m, const char *ns);

/* A release's metadata gathered from its wheels' `*.dist-info/variant.json`
 * (when the index page has no variants.json): each wheel vouches for its
 * own label only.  ts_variant_metadata_keep_only drops every other entry
 * of a wheel's file (false when the file has no entry for the wheel's
 * label: that wheel's metadata is malformed).  ts_variant_metadata_adopt
 * moves `from`'s entries into `into` (the first wheel's file, whose
 * priorities, providers and static properties stand for the release),
 * leaving out labels `into` has already, and clears `from`. */
bool ts_variant_metadata_keep_only(struct ts_variant_metadata *m, const char *label);
void ts_variant_metadata_adopt(struct ts_variant_metadata *into,
                               struct ts_variant_metadata *from);
