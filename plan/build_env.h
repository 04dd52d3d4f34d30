/*
 * plan/build_env.h — what fills source/'s build environments: the
 * resolver and installer of this room behind source/build.h's provider,
 * for every build's options (ts_source_build_options.env: the caller that
 * makes them, cli/build_options.c, sets it).
 */
#pragma once

#include "source/build.h"

extern const struct ts_source_env_provider ts_plan_env_provider;
