#include <yaml.h>

#include "rules/rules.h"

const char *ts_rules_libyaml_version(void) { return yaml_get_version_string(); }
