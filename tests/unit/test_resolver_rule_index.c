/* resolver/state.h's rule_by_subject: the constraints about a project,
 * found by its name, in the order of the set (the order the resolver
 * adds their deps to a revealed version). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "resolver/state.h"

static struct ts_constraint con(const char *subject) {
  struct ts_constraint c;
  memset(&c, 0, sizeof c);
  c.subject.name = (char *)subject;
  return c;
}

Test(resolver_rule_index, finds_each_projects_constraints_in_set_order) {
  struct ts_constraint cs[] = {con("torch"), con("torchvision"), con("torch"),
                               con("__cuda"), con("torchaudio"), con("torch"),
                               con("torchvision")};
  struct ts_constraint_set set = {.constraints = cs, .nconstraints = 7};
  struct ts_resolver_request req = {.rules = &set};
  struct rs rs;
  memset(&rs, 0, sizeof rs);
  rs.req = &req;
  ts_rs_index_rules(&rs);
  size_t n;
  const size_t *about = ts_rs_rules_about(&rs, "torch", &n);
  cr_assert_eq(n, 3);
  cr_expect(about[0] == 0 && about[1] == 2 && about[2] == 5);
  about = ts_rs_rules_about(&rs, "torchvision", &n);
  cr_assert_eq(n, 2);
  cr_expect(about[0] == 1 && about[1] == 6);
  about = ts_rs_rules_about(&rs, "__cuda", &n);
  cr_expect(n == 1 && about[0] == 3);
  ts_rs_rules_about(&rs, "torc", &n);
  cr_expect_eq(n, 0, "a prefix is another name");
  ts_rs_rules_about(&rs, "zzz", &n);
  cr_expect_eq(n, 0);
  ts_rs_rules_about(&rs, "", &n);
  cr_expect_eq(n, 0);
  free(rs.rule_by_subject);
}

Test(resolver_rule_index, empty_set) {
  struct ts_constraint_set set = {0};
  struct ts_resolver_request req = {.rules = &set};
  struct rs rs;
  memset(&rs, 0, sizeof rs);
  rs.req = &req;
  ts_rs_index_rules(&rs);
  size_t n = 99;
  ts_rs_rules_about(&rs, "torch", &n);
  cr_expect_eq(n, 0);
  free(rs.rule_by_subject);
}
