/*
 * core/vec.h — one growable array, under core/alloc.h's policy (out of
 * memory aborts), after libsolv's queue.h / solv_extend: the growth rule
 * is written once, here, instead of a `cap *= 2` at every site.
 *
 * Two ways in:
 *   - TS_VEC(T): a typed array { T *items; size_t n, cap; } for new code,
 *     with ts_vec_push / ts_vec_reserve / ts_vec_sort / ts_vec_free;
 *   - ts_vec_grow(): the same growth for an array that already lives in a
 *     struct as a (pointer, count, capacity) triple whose layout is part of
 *     a header's contract.
 *
 *   TS_VEC(size_t) order = {0};
 *   ts_vec_push(&order, i);
 *   ts_vec_sort(&order, cmp_size);
 *   ... order.items[0 .. order.n) ...
 *   ts_vec_free(&order);
 *
 * The vector owns items; ts_vec_take hands them to the caller.  An empty
 * vector may hold items == NULL: read items only below n.
 */
#pragma once

#include <stddef.h>
#include <stdlib.h>

/* The members of a vector of T: embed them in a named struct
 * (`struct ts_files { TS_VEC_MEMBERS(struct file); };`) where a type must
 * be spelled more than once. */
#define TS_VEC_MEMBERS(T) \
  T *items;               \
  size_t n;               \
  size_t cap
/* An anonymous vector type of T, for locals and members. */
#define TS_VEC(T) struct { TS_VEC_MEMBERS(T); }

/* Returns p grown so that it holds at least `need` elements of `esize`
 * bytes, updating *cap: doubling, from 8, so that n pushes cost O(n)
 * copies.  p is returned unchanged when *cap already suffices; aborts when
 * need * esize overflows or memory is exhausted.  Elements past the old
 * capacity are uninitialised. */
void *ts_vec_grow(void *p, size_t *cap, size_t need, size_t esize);

/* Room for `extra` more elements without another allocation. */
#define ts_vec_reserve(v, extra)                                                   \
  ((v)->items = ts_vec_grow((v)->items, &(v)->cap, (v)->n + (extra), sizeof *(v)->items))
/* Appends x (an expression of the element type). */
#define ts_vec_push(v, x) (ts_vec_reserve((v), 1), (v)->items[(v)->n++] = (x))
/* Appends one zeroed element and returns a pointer to it (valid until the
 * next push). */
#define ts_vec_push_zero(v)                                                        \
  (ts_vec_reserve((v), 1),                                                         \
   ts_vec_zero_((v)->items + (v)->n, sizeof *(v)->items), &(v)->items[(v)->n++])
/* qsort of the n elements with cmp (qsort's contract). */
#define ts_vec_sort(v, cmp) ts_vec_sort_((v)->items, (v)->n, sizeof *(v)->items, (cmp))
/* Releases the storage (not what the elements point to) and empties v. */
#define ts_vec_free(v) (free((v)->items), (v)->items = NULL, (v)->n = 0, (v)->cap = 0)
/* Hands the items to the caller (NULL when empty; *count gets n) and
 * leaves v empty. */
#define ts_vec_take(v, count) ts_vec_take_((void **)&(v)->items, &(v)->n, &(v)->cap, (count))

void ts_vec_zero_(void *elem, size_t esize);
void ts_vec_sort_(void *items, size_t n, size_t esize, int (*cmp)(const void *, const void *));
void *ts_vec_take_(void **items, size_t *n, size_t *cap, size_t *count);
