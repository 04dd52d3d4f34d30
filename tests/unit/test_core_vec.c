/* core/vec: the one growable array (typed TS_VEC and ts_vec_grow for
 * arrays embedded in existing structs). */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "core/vec.h"

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

Test(vec, push_keeps_order_and_grows) {
  TS_VEC(int) v = {0};
  for (int i = 0; i < 1000; i++)
    ts_vec_push(&v, 999 - i);
  cr_assert_eq(v.n, 1000);
  cr_expect_geq(v.cap, 1000);
  cr_expect_eq(v.cap & (v.cap - 1), 0, "capacity doubles from 8: %zu", v.cap);
  for (int i = 0; i < 1000; i++)
    cr_expect_eq(v.items[i], 999 - i);
  ts_vec_sort(&v, cmp_int);
  for (int i = 0; i < 1000; i++)
    cr_expect_eq(v.items[i], i);
  ts_vec_free(&v);
  cr_expect(v.items == NULL && v.n == 0 && v.cap == 0);
}

Test(vec, reserve_allocates_once) {
  TS_VEC(double) v = {0};
  ts_vec_reserve(&v, 100);
  double *before = v.items;
  cr_assert_not_null(before);
  for (int i = 0; i < 100; i++)
    ts_vec_push(&v, i * 0.5);
  cr_expect_eq(v.items, before, "no reallocation inside the reserved room");
  cr_expect_eq(v.items[99], 49.5);
  ts_vec_free(&v);
}

struct pair {
  const char *key;
  int value;
};

Test(vec, push_zero_gives_a_cleared_slot) {
  TS_VEC(struct pair) v = {0};
  for (int i = 0; i < 20; i++) {
    struct pair *p = ts_vec_push_zero(&v);
    cr_expect(p->key == NULL && p->value == 0);
    p->value = i;
  }
  cr_expect_eq(v.n, 20);
  cr_expect_eq(v.items[19].value, 19);
  ts_vec_free(&v);
}

Test(vec, take_hands_over_the_items) {
  TS_VEC(char *) v = {0};
  ts_vec_push(&v, ts_xstrdup("b"));
  ts_vec_push(&v, ts_xstrdup("a"));
  ts_vec_sort(&v, ts_strv_cmp);
  size_t n = 0;
  char **owned = ts_vec_take(&v, &n);
  cr_expect(v.items == NULL && v.n == 0 && v.cap == 0);
  cr_assert_eq(n, 2);
  cr_expect_str_eq(owned[0], "a");
  cr_expect_str_eq(owned[1], "b");
  ts_strv_free(owned, n);
  TS_VEC(int) empty = {0};
  cr_expect_null(ts_vec_take(&empty, &n));
  cr_expect_eq(n, 0);
}

/* The (pointer, count, capacity) form used by structs whose layout a
 * header fixes. */
Test(vec, grow_embedded_triple) {
  struct {
    uint32_t *ids;
    size_t nids, ids_cap;
  } s = {0};
  for (uint32_t i = 0; i < 100; i++) {
    s.ids = ts_vec_grow(s.ids, &s.ids_cap, s.nids + 1, sizeof *s.ids);
    s.ids[s.nids++] = i;
  }
  cr_expect_eq(s.ids_cap, 128);
  uint32_t *same = ts_vec_grow(s.ids, &s.ids_cap, 50, sizeof *s.ids);
  cr_expect_eq(same, s.ids, "enough room: unchanged");
  cr_expect_eq(s.ids[99], 99);
  free(s.ids);
}

Test(vec, grow_overflow_aborts, .signal = SIGABRT) {
  size_t cap = 0;
  ts_vec_grow(NULL, &cap, SIZE_MAX / 2, 16);
}
