/* Unit tests for inventory/report.h: pip's installation report JSON. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "inventory/report.h"

static char *write_report(const struct ts_report *r) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  struct ts_error err = {0};
  cr_assert_eq(ts_report_write(r, &b, &err), TS_OK, "%s", err.detail);
  return ts_buf_take(&b, NULL);
}

Test(report, exact_bytes_like_pip_json_dump_indent_2) {
  const struct ts_report_kv md[] = {
      {"Metadata-Version", "2.1"}, {"Name", "six"}, {"Version", "1.17.0"}};
  const struct ts_report_item item = {
      .metadata = md, .nmetadata = 3,
      .url = "https://files.pythonhosted.org/packages/six-1.17.0-py2.py3-none-any.whl",
      .sha256 = "4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274",
      .requested = true};
  const struct ts_report_kv env[] = {{"python_version", "3.12"}};
  const struct ts_report r = {.tool_version = "torchsolve 0.1.0", .items = &item,
                              .nitems = 1, .environment = env, .nenvironment = 1};
  char *s = write_report(&r);
  cr_assert_str_eq(
      s,
      "{\n"
      "  \"version\": \"1\",\n"
      "  \"pip_version\": \"torchsolve 0.1.0\",\n"
      "  \"install\": [\n"
      "    {\n"
      "      \"download_info\": {\n"
      "        \"url\": \"https://files.pythonhosted.org/packages/six-1.17.0-py2.py3-none-any.whl\",\n"
      "        \"archive_info\": {\n"
      "          \"hash\": \"sha256=4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274\",\n"
      "          \"hashes\": {\n"
      "            \"sha256\": \"4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274\"\n"
      "          }\n"
      "        }\n"
      "      },\n"
      "      \"is_direct\": false,\n"
      "      \"is_yanked\": false,\n"
      "      \"requested\": true,\n"
      "      \"metadata\": {\n"
      "        \"metadata_version\": \"2.1\",\n"
      "        \"name\": \"six\",\n"
      "        \"version\": \"1.17.0\"\n"
      "      }\n"
      "    }\n"
      "  ],\n"
      "  \"environment\": {\n"
      "    \"python_version\": \"3.12\"\n"
      "  }\n"
      "}\n");
  free(s);
}

Test(report, metadata_json_form) {
  const struct ts_report_kv md[] = {
      {"Name", "torch"},
      {"Version", "2.9.1+cu130"},
      {"Metadata-Version", "2.4"},
      {"Requires-Dist", "filelock"},
      {"requires-dist", "typing-extensions>=4.10.0"},
      {"Classifier", "Programming Language :: Python :: 3"},
      {"Keywords", "pytorch, machine learning"},
      {"Summary", "Tensors \"and\" dynamic neural networks\twith GPU"},
      {"X-Unknown", "dropped"},
      {"Provides-Extra", "opt-einsum"},
      {"Description", "long\ntext é"},
      {"Summary", "second summary ignored"},
  };
  const char *extras[] = {"zeta", "alpha"};
  struct ts_report_item items[2] = {
      {.metadata = md, .nmetadata = sizeof md / sizeof md[0],
       .url = "https://download.pytorch.org/whl/cu130/torch-2.9.1%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl",
       .sha256 = "00", .requested = true, .requested_extras = extras,
       .nrequested_extras = 2},
      {.name = "mylib", .version = "0.1", .url = "file:///src/mylib",
       .is_dir = true, .editable = true, .is_direct = true},
  };
  struct ts_marker_env menv = {.implementation_name = "cpython",
                               .python_version = "3.12",
                               .sys_platform = "linux"};
  struct ts_report_kv env[TS_REPORT_ENV_KEYS];
  cr_assert_eq(ts_report_env_from_markers(&menv, env), 11);
  struct ts_report r = {.items = items, .nitems = 2, .environment = env,
                        .nenvironment = TS_REPORT_ENV_KEYS};
  char *s = write_report(&r);
  cJSON *j = cJSON_Parse(s);
  cr_assert_not_null(j, "not JSON:\n%s", s);
  cr_assert_str_eq(cJSON_GetObjectItem(j, "pip_version")->valuestring, "torchsolve");
  cJSON *inst = cJSON_GetObjectItem(j, "install");
  cr_assert_eq(cJSON_GetArraySize(inst), 2);
  cJSON *m = cJSON_GetObjectItem(cJSON_GetArrayItem(inst, 0), "metadata");
  cr_assert_str_eq(m->child->string, "metadata_version"); /* pip's order */
  cJSON *rd = cJSON_GetObjectItem(m, "requires_dist");
  cr_assert(cJSON_IsArray(rd));
  cr_assert_eq(cJSON_GetArraySize(rd), 2);
  cJSON *kw = cJSON_GetObjectItem(m, "keywords");
  cr_assert_eq(cJSON_GetArraySize(kw), 2);
  cr_assert_str_eq(cJSON_GetArrayItem(kw, 1)->valuestring, "machine learning");
  cr_assert_str_eq(cJSON_GetObjectItem(m, "summary")->valuestring,
                   "Tensors \"and\" dynamic neural networks\twith GPU");
  cr_assert_str_eq(cJSON_GetObjectItem(m, "description")->valuestring, "long\ntext é");
  cr_assert(cJSON_IsArray(cJSON_GetObjectItem(m, "provides_extra")));
  cr_assert_null(cJSON_GetObjectItem(m, "x_unknown"));
  cJSON *ex = cJSON_GetObjectItem(cJSON_GetArrayItem(inst, 0), "requested_extras");
  cr_assert_str_eq(cJSON_GetArrayItem(ex, 0)->valuestring, "alpha");
  cJSON *second = cJSON_GetArrayItem(inst, 1);
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(second, "is_direct")));
  cJSON *di = cJSON_GetObjectItem(cJSON_GetObjectItem(second, "download_info"), "dir_info");
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(di, "editable")));
  cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(second, "metadata"), "name")->valuestring,
                   "mylib");
  cJSON *e = cJSON_GetObjectItem(j, "environment");
  cr_assert_eq(cJSON_GetArraySize(e), 11);
  cr_assert_str_eq(e->child->string, "implementation_name");
  cr_assert_str_eq(cJSON_GetObjectItem(e, "os_name")->valuestring, "");
  /* ensure_ascii=False: UTF-8 stays raw; controls are escaped */
  cr_assert(strstr(s, "text é"));
  cr_assert(strstr(s, "\\\"and\\\" dynamic neural networks\\twith"));
  cJSON_Delete(j);
  free(s);
}

Test(report, vcs_info_and_errors) {
  struct ts_report_item it = {.name = "pkg", .version = "1", .url = "https://g/p.git",
                              .vcs = "git", .commit_id = "abc",
                              .requested_revision = "main", .subdirectory = "sub",
                              .is_direct = true};
  struct ts_report r = {.items = &it, .nitems = 1};
  char *s = write_report(&r);
  cr_assert(strstr(s, "\"url\": \"https://g/p.git\",\n        \"subdirectory\": \"sub\",\n"
                      "        \"vcs_info\": {\n          \"vcs\": \"git\",\n"
                      "          \"requested_revision\": \"main\",\n"
                      "          \"commit_id\": \"abc\"\n"), "%s", s);
  cr_assert(strstr(s, "\"environment\": {}"), "%s", s);
  free(s);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  it.name = "bad\xff";
  cr_assert_eq(ts_report_write(&r, &b, NULL), TS_E_INVALID);
  it.name = NULL;
  cr_assert_eq(ts_report_write(&r, &b, NULL), TS_E_INVALID);
  ts_buf_clear(&b);
}
