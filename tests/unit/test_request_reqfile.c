/* Unit tests for request/reqfile.h: pip requirements files, fed from memory
 * through the reader callback, plus real files under fixtures/lock/reqs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/reqfile.h"

/* An in-memory file system: NULL-terminated name/content pairs. */
struct memfs {
  const char *const *files;
  int reads;
};

static enum ts_code mem_read(void *ctx, const char *path, char **data,
                             size_t *len, struct ts_error *err) {
  struct memfs *fs = ctx;
  fs->reads++;
  for (size_t i = 0; fs->files[i]; i += 2) {
    if (strcmp(fs->files[i], path) == 0) {
      *len = strlen(fs->files[i + 1]);
      *data = strdup(fs->files[i + 1]);
      return TS_OK;
    }
  }
  return ts_error_set(err, TS_E_NOT_FOUND, "no such file");
}

static bool mem_is_dir(void *ctx, const char *path) {
  (void)ctx;
  return strcmp(path, "./src/mypkg") == 0 || strcmp(path, "./src/dir") == 0;
}

static const char *fake_env(void *ctx, const char *name) {
  (void)ctx;
  if (strcmp(name, "TOKEN") == 0)
    return "s3cr3t";
  if (strcmp(name, "EMPTY") == 0)
    return "";
  if (strcmp(name, "IDX_1") == 0)
    return "https://idx.example/simple";
  return NULL;
}

static enum ts_code parse_mem(const char *const *files, struct ts_reqfile *rf,
                              struct ts_error *err) {
  static struct memfs fs;
  static struct ts_reqfile_reader reader;
  fs.files = files;
  fs.reads = 0;
  reader.read = mem_read;
  reader.is_dir = mem_is_dir;
  reader.ctx = &fs;
  struct ts_reqfile_opts opts = {.reader = &reader, .getenv = fake_env};
  ts_reqfile_init(rf);
  return ts_reqfile_add_file(rf, files[0], false, &opts, err);
}

static void expect_error(const char *const *files, enum ts_code code,
                         const char *frag) {
  struct ts_reqfile rf;
  struct ts_error err = {0};
  enum ts_code rc = parse_mem(files, &rf, &err);
  cr_assert_eq(rc, code, "expected %s got %s (%s)", ts_code_name(code),
               ts_code_name(rc), err.detail);
  cr_assert(strstr(err.detail, frag), "detail '%s' lacks '%s'", err.detail,
            frag);
  ts_reqfile_clear(&rf);
}

Test(reqfile, lines_comments_continuations) {
  const char *files[] = {
      "req.txt",
      "# comment\n"
      "\n"
      "   # indented comment \\\n"
      "torch>=2.4 # trailing comment\n"
      "numpy\\\n"
      "<2.3\n"
      "requests @ https://h/requests-2.0-py3-none-any.whl#sha256=abc\n"
      "six ; python_version < \"3\"\r\n"
      "last==1.0 \\",
      NULL};
  struct ts_reqfile rf;
  struct ts_error err = {0};
  cr_assert_eq(parse_mem(files, &rf, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(rf.nentries, 5);
  cr_assert_eq(rf.entries[0].kind, TS_REQFILE_NAMED);
  cr_assert_str_eq(rf.entries[0].name, "torch");
  cr_assert_eq(rf.entries[0].line, 4);
  cr_assert_str_eq(rf.entries[0].file, "req.txt");
  cr_assert_str_eq(rf.entries[1].text, "numpy<2.3");
  cr_assert_eq(rf.entries[1].line, 5);
  /* '#' not after whitespace stays: URL fragments survive */
  cr_assert_str_eq(rf.entries[2].req->url,
                   "https://h/requests-2.0-py3-none-any.whl#sha256=abc");
  cr_assert_not_null(rf.entries[3].req->marker);
  cr_assert_str_eq(rf.entries[4].name, "last");
  cr_assert_eq(rf.entries[4].line, 9);
  ts_reqfile_clear(&rf);
}

Test(reqfile, hashes_and_options) {
  const char *files[] = {
      "req.txt",
      "-i https://download.pytorch.org/whl/cu130\n"
      "--index-url=https://second.example/simple\n"
      "--extra-index-url https://pypi.org/simple\n"
      "--extra-index https://abbrev.example/simple\n"
      "-f ./wheels\n"
      "--find-links=https://h/links.html\n"
      "--pre\n"
      "--no-index --require-hashes --prefer-binary\n"
      "--only-binary :all: --trusted-host h.example\n"
      "--use-feature truststore\n"
      "torch==2.9.1+cu130 \\\n"
      "    --hash=sha256:5AB5cbd2da7ecd7b8d9d1c1b2a3c4e5f60718293a4b5c6d7e8f9001122334455 \\\n"
      "    --hash sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n"
      "foo --config-settings=a=b --global-option=x\n",
      NULL};
  struct ts_reqfile rf;
  struct ts_error err = {0};
  cr_assert_eq(parse_mem(files, &rf, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(rf.index_url, "https://second.example/simple");
  cr_assert_eq(rf.nextra_index_urls, 2);
  cr_assert_str_eq(rf.extra_index_urls[1], "https://abbrev.example/simple");
  cr_assert_eq(rf.nfind_links, 2);
  cr_assert_str_eq(rf.find_links[0], "./wheels");
  cr_assert(rf.pre && rf.no_index && rf.require_hashes && rf.prefer_binary);
  cr_assert_eq(rf.nonly_binary, 1);
  cr_assert_str_eq(rf.trusted_hosts[0], "h.example");
  cr_assert_eq(rf.nentries, 2);
  cr_assert_eq(rf.entries[0].nhashes, 2);
  cr_assert_str_eq(rf.entries[0].hashes[0],
                   "sha256:5ab5cbd2da7ecd7b8d9d1c1b2a3c4e5f60718293a4b5c6d7e8f9001122334455");
  cr_assert_str_eq(rf.entries[0].text, "torch==2.9.1+cu130");
  cr_assert_str_eq(rf.entries[1].name, "foo");
  ts_reqfile_clear(&rf);
}

Test(reqfile, nesting_relative_to_the_including_file) {
  const char *files[] = {
      "dir/top.txt", "-r sub/a.txt\n-c ../c.txt\n--requirement=sub/../b.txt\n",
      "dir/sub/a.txt", "alpha\n-r ./deeper/d.txt\n",
      "dir/sub/deeper/d.txt", "delta\n",
      "c.txt", "numpy<2\n",
      "dir/b.txt", "-rsub/e.txt\n",
      "dir/sub/e.txt", "echo\n",
      NULL};
  struct ts_reqfile rf;
  struct ts_error err = {0};
  cr_assert_eq(parse_mem(files, &rf, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(rf.nentries, 4);
  cr_assert_str_eq(rf.entries[0].name, "alpha");
  cr_assert_str_eq(rf.entries[0].file, "dir/sub/a.txt");
  cr_assert_str_eq(rf.entries[1].name, "delta");
  cr_assert_str_eq(rf.entries[1].file, "dir/sub/deeper/d.txt");
  cr_assert_str_eq(rf.entries[2].name, "numpy");
  cr_assert(rf.entries[2].is_constraint);
  cr_assert_not(rf.entries[1].is_constraint);
  cr_assert_str_eq(rf.entries[3].name, "echo");
  ts_reqfile_clear(&rf);
}

Test(reqfile, cycles_and_depth) {
  const char *cycle[] = {"a.txt", "x\n-r b.txt\n", "b.txt", "-r ./sub/../a.txt\n",
                         NULL};
  expect_error(cycle, TS_E_PARSE, "b.txt:1: 'a.txt' includes itself");
  const char *self[] = {"a.txt", "-c a.txt\n", NULL};
  expect_error(self, TS_E_PARSE, "includes itself");
  /* a chain of 40 distinct files */
  static char names[41][16], bodies[41][32];
  const char *chain[84];
  for (int i = 0; i <= 40; i++) {
    snprintf(names[i], sizeof names[i], "f%d.txt", i);
    snprintf(bodies[i], sizeof bodies[i], "-r f%d.txt\n", i + 1);
    chain[2 * i] = names[i];
    chain[2 * i + 1] = bodies[i];
  }
  chain[82] = NULL;
  expect_error(chain, TS_E_TOO_BIG, "nested deeper than 32");
  /* a diamond that would read 2^20 files is stopped by the file cap */
  static char dn[21][16], db[21][48];
  const char *diamond[44];
  for (int i = 0; i < 21; i++) {
    snprintf(dn[i], sizeof dn[i], "d%d.txt", i);
    if (i < 20)
      snprintf(db[i], sizeof db[i], "-r d%d.txt\n-r ./d%d.txt\n", i + 1, i + 1);
    else
      snprintf(db[i], sizeof db[i], "leaf\n");
    diamond[2 * i] = dn[i];
    diamond[2 * i + 1] = db[i];
  }
  diamond[42] = NULL;
  expect_error(diamond, TS_E_TOO_BIG, "more than 1024 requirements files");
  const char *missing[] = {"a.txt", "ok\n-r nope.txt\n", NULL};
  expect_error(missing, TS_E_NOT_FOUND, "a.txt:2: cannot read 'nope.txt'");
}

Test(reqfile, editable_directory) {
  const char *f[] = {"r.txt", "-e ./src/mypkg\n--editable=./src/dir\nplain\n", NULL};
  struct ts_reqfile rf;
  struct ts_error err = {0};
  cr_assert_eq(parse_mem(f, &rf, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(rf.nentries, 3);
  cr_assert_eq(rf.entries[0].kind, TS_REQFILE_PATH);
  cr_assert_str_eq(rf.entries[0].path, "./src/mypkg");
  cr_assert(rf.entries[0].editable);
  cr_assert(rf.entries[1].editable);
  cr_assert_eq(rf.entries[1].line, 2);
  cr_assert_not(rf.entries[2].editable);
  ts_reqfile_clear(&rf);
}

Test(reqfile, refusals_name_file_and_line) {
  const char *ed[] = {"r.txt", "ok\n-e ./pkg-1.0.tar.gz\n", NULL};
  expect_error(ed, TS_E_INVALID, "r.txt:2: -e ./pkg-1.0.tar.gz: editable installs need a local project directory");
  const char *edname[] = {"r.txt", "-e torch\n", NULL};
  expect_error(edname, TS_E_INVALID, "r.txt:1: -e torch: editable installs need");
  const char *edmix[] = {"r.txt", "-e ./src/dir --hash=sha256:" "0000000000000000000000000000000000000000000000000000000000000000" "\n", NULL};
  expect_error(edmix, TS_E_PARSE, "an editable requirement stands alone");
  const char *unk[] = {"r.txt", "\n\n--frobnicate\n", NULL};
  expect_error(unk, TS_E_PARSE, "r.txt:3: no such option: --frobnicate");
  const char *amb[] = {"r.txt", "--pr\n", NULL};
  expect_error(amb, TS_E_PARSE, "ambiguous option: --pr");
  const char *noarg[] = {"r.txt", "--index-url\n", NULL};
  expect_error(noarg, TS_E_PARSE, "requires 1 argument");
  const char *val[] = {"r.txt", "--pre=yes\n", NULL};
  expect_error(val, TS_E_PARSE, "does not take a value");
  const char *onreq[] = {"r.txt", "torch -i https://x/simple\n", NULL};
  expect_error(onreq, TS_E_PARSE, "not allowed on a requirement line");
  const char *algo[] = {"r.txt", "torch --hash=md5:00\n", NULL};
  expect_error(algo, TS_E_PARSE, "allowed hash algorithms");
  const char *hlen[] = {"r.txt", "torch --hash=sha256:abcd\n", NULL};
  expect_error(hlen, TS_E_PARSE, "64 hex digits");
  const char *hnoc[] = {"r.txt", "torch --hash=abcd\n", NULL};
  expect_error(hnoc, TS_E_PARSE, "hash name followed by a value");
  const char *lone[] = {"r.txt", "--hash=sha256:" "0000000000000000000000000000000000000000000000000000000000000000" "\n", NULL};
  expect_error(lone, TS_E_PARSE, "needs a requirement");
  const char *stray[] = {"r.txt", "--pre torch\n", NULL};
  expect_error(stray, TS_E_PARSE, "unexpected argument 'torch'");
  const char *bad[] = {"r.txt", "torch >= = 2\n", NULL};
  expect_error(bad, TS_E_PARSE, "r.txt:1: invalid requirement 'torch >= = 2'");
  const char *quote[] = {"r.txt", "--index-url 'unterminated\n", NULL};
  expect_error(quote, TS_E_PARSE, "no closing quotation");
  const char *url[] = {"r.txt", "-r https://h/r.txt\n", NULL};
  expect_error(url, TS_E_UNSUPPORTED, "URLs are not supported");
  const char *unnamed[] = {"r.txt", "-c c.txt\n", "c.txt", "./src/dir\n", NULL};
  expect_error(unnamed, TS_E_PARSE, "c.txt:1: unnamed requirements are not allowed as constraints");
  const char *extras[] = {"r.txt", "-c c.txt\n", "c.txt", "foo[bar]<2\n", NULL};
  expect_error(extras, TS_E_PARSE, "constraints cannot have extras");
  const char *notutf8[] = {"r.txt", "ok\nbad\xff\n", NULL};
  expect_error(notutf8, TS_E_PARSE, "r.txt:2: not UTF-8");
  const char *badwhl[] = {"r.txt", "./not-a-wheel.whl\n", NULL};
  expect_error(badwhl, TS_E_PARSE, "r.txt:1: 'not-a-wheel.whl' is not a valid wheel file name");
}

Test(reqfile, environment_variables_as_pip) {
  const char *files[] = {
      "r.txt",
      "--extra-index-url https://user:${TOKEN}@h.example/simple\n"
      "--extra-index-url ${IDX_1}\n"
      "--extra-index-url https://h/${UNSET}/${EMPTY}/$TOKEN/${token}/\n",
      NULL};
  struct ts_reqfile rf;
  struct ts_error err = {0};
  cr_assert_eq(parse_mem(files, &rf, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(rf.nextra_index_urls, 3);
  cr_assert_str_eq(rf.extra_index_urls[0], "https://user:s3cr3t@h.example/simple");
  cr_assert_str_eq(rf.extra_index_urls[1], "https://idx.example/simple");
  cr_assert_str_eq(rf.extra_index_urls[2],
                   "https://h/${UNSET}/${EMPTY}/$TOKEN/${token}/");
  ts_reqfile_clear(&rf);
  /* a line that fails because a variable stayed as written names it */
  const char *unset[] = {"r.txt", "ok\ntorch==${TORCH_VER}\n", NULL};
  expect_error(unset, TS_E_PARSE,
               "r.txt:2: invalid requirement 'torch==${TORCH_VER}'");
  expect_error(unset, TS_E_PARSE,
               "(the environment variable TORCH_VER is unset or empty)");
  const char *empty[] = {"r.txt", "torch==${EMPTY}\n", NULL};
  expect_error(empty, TS_E_PARSE, "EMPTY is unset or empty");
}

Test(reqfile, paths_and_urls) {
  const char *files[] = {
      "r.txt",
      "./torch-2.9.1a0+gitd38164a-cp311-cp311-linux_x86_64.whl\n"
      "wheels/numpy-2.2.3-cp312-cp312-manylinux_2_17_x86_64.whl[extra1] ; sys_platform == \"linux\"\n"
      "https://h/dl/six-1.17.0-py2.py3-none-any.whl; python_version >= \"3\"\n"
      "git+https://github.com/ex/pkg.git@v1#egg=Pkg_Name&subdirectory=sub\n"
      "./src/mypkg\n"
      "../sdists/foo-1.0.tar.gz\n"
      "bar @ file:///tmp/bar-1.0-py3-none-any.whl\n",
      NULL};
  struct ts_reqfile rf;
  struct ts_error err = {0};
  cr_assert_eq(parse_mem(files, &rf, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(rf.nentries, 7);
  const struct ts_reqfile_entry *e = rf.entries;
  cr_assert_eq(e[0].kind, TS_REQFILE_PATH);
  cr_assert_str_eq(e[0].path,
                   "./torch-2.9.1a0+gitd38164a-cp311-cp311-linux_x86_64.whl");
  cr_assert_str_eq(e[0].name, "torch");
  cr_assert_str_eq(e[0].version, "2.9.1a0+gitd38164a");
  cr_assert_eq(e[1].kind, TS_REQFILE_PATH);
  cr_assert_str_eq(e[1].path, "wheels/numpy-2.2.3-cp312-cp312-manylinux_2_17_x86_64.whl");
  cr_assert_eq(e[1].nextras, 1);
  cr_assert_str_eq(e[1].extras[0], "extra1");
  cr_assert_str_eq(e[1].marker, "sys_platform == \"linux\"");
  cr_assert_eq(e[2].kind, TS_REQFILE_URL);
  /* after a URL only "; " splits a marker off */
  cr_assert_str_eq(e[2].url, "https://h/dl/six-1.17.0-py2.py3-none-any.whl");
  cr_assert_str_eq(e[2].name, "six");
  cr_assert_str_eq(e[2].marker, "python_version >= \"3\"");
  cr_assert_eq(e[3].kind, TS_REQFILE_URL);
  cr_assert_str_eq(e[3].name, "pkg-name");
  cr_assert_null(e[3].version);
  cr_assert_eq(e[4].kind, TS_REQFILE_PATH);
  cr_assert_null(e[4].name);
  cr_assert_eq(e[5].kind, TS_REQFILE_PATH);
  cr_assert_null(e[5].name);
  cr_assert_eq(e[6].kind, TS_REQFILE_NAMED);
  cr_assert_str_eq(e[6].req->url, "file:///tmp/bar-1.0-py3-none-any.whl");
  ts_reqfile_clear(&rf);
}

Test(reqfile, single_requirement_api) {
  struct ts_reqfile_entry e;
  struct ts_error err = {0};
  cr_assert_eq(ts_reqfile_parse_requirement("Torch[CUDA] >=2.4;python_version>'3.9'", 38, NULL, &e, &err),
               TS_OK, "%s", err.detail);
  cr_assert_eq(e.kind, TS_REQFILE_NAMED);
  cr_assert_str_eq(e.name, "torch");
  cr_assert_eq(e.req->nextras, 1);
  cr_assert_not_null(e.req->marker);
  ts_reqfile_entry_clear(&e);
  cr_assert_eq(ts_reqfile_parse_requirement("   ", 3, NULL, &e, &err), TS_E_PARSE);
  cr_assert_eq(ts_reqfile_parse_requirement("x ; python_version >>", 21, NULL, &e, &err),
               TS_E_PARSE);
  cr_assert(strstr(err.detail, "invalid marker"), "%s", err.detail);
  /* a path-like text is a path only when the directory exists (stat) */
  char dir[512];
  snprintf(dir, sizeof dir, "%s/lock/reqs/sub", TS_FIXTURES_DIR);
  cr_assert_eq(ts_reqfile_parse_requirement(dir, strlen(dir), NULL, &e, &err), TS_OK);
  cr_assert_eq(e.kind, TS_REQFILE_PATH);
  ts_reqfile_entry_clear(&e);
  cr_assert_eq(ts_reqfile_parse_requirement("./no/such/dir", 13, NULL, &e, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "looks like a path"), "%s", err.detail);
}

Test(reqfile, bom_crlf_and_other_line_ends) {
  const char *files[] = {"r.txt",
                         "\xEF\xBB\xBF" "a\r\nb\rc\fd\xE2\x80\xA8" "e\n",
                         NULL};
  struct ts_reqfile rf;
  struct ts_error err = {0};
  cr_assert_eq(parse_mem(files, &rf, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(rf.nentries, 5);
  cr_assert_str_eq(rf.entries[4].name, "e");
  cr_assert_eq(rf.entries[4].line, 5);
  ts_reqfile_clear(&rf);
}

Test(reqfile, real_files_with_the_default_reader) {
  char top[512];
  snprintf(top, sizeof top, "%s/lock/reqs/top.txt", TS_FIXTURES_DIR);
  struct ts_reqfile rf;
  ts_reqfile_init(&rf);
  struct ts_error err = {0};
  cr_assert_eq(ts_reqfile_add_file(&rf, top, false, NULL, &err), TS_OK, "%s",
               err.detail);
  cr_assert_str_eq(rf.index_url, "https://download.pytorch.org/whl/cu130");
  cr_assert_eq(rf.nextra_index_urls, 1);
  cr_assert_eq(rf.nentries, 4);
  cr_assert_str_eq(rf.entries[0].name, "transformers");
  cr_assert_str_eq(rf.entries[1].name, "torch");
  cr_assert_str_eq(rf.entries[1].version, "2.9.1a0+gitd38164a");
  cr_assert(strstr(rf.entries[1].file, "lock/reqs/leaf.txt"), "%s", rf.entries[1].file);
  cr_assert(rf.entries[2].is_constraint);
  cr_assert_eq(rf.entries[3].nhashes, 1);
  cr_assert_eq(rf.entries[3].line, 5);
  /* a second -c from the command line accumulates into the same result */
  char cons[512];
  snprintf(cons, sizeof cons, "%s/lock/reqs/constraints.txt", TS_FIXTURES_DIR);
  cr_assert_eq(ts_reqfile_add_file(&rf, cons, true, NULL, &err), TS_OK);
  cr_assert_eq(rf.nentries, 5);
  ts_reqfile_clear(&rf);
  char cyc[512];
  snprintf(cyc, sizeof cyc, "%s/lock/reqs/cycle-a.txt", TS_FIXTURES_DIR);
  cr_assert_eq(ts_reqfile_add_file(&rf, cyc, false, NULL, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "includes itself"), "%s", err.detail);
  ts_reqfile_clear(&rf);
  cr_assert_eq(ts_reqfile_add_file(&rf, "/nonexistent/r.txt", false, NULL, &err),
               TS_E_NOT_FOUND);
}
