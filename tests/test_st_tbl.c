/* The state engine's bounded tables (st_tbl.c): a long random sequence of finds, gets, removals and
 * evictions checked against a plain list of the keys the table must hold. Every answer must be the
 * entry of the key asked for (its data names the key), also for the two keys looked up last, which a
 * lookup answers without hashing while no entry has moved (Robin Hood inserts, backward-shift
 * removals and growth all move entries). The iteration order depends on the keys only. */
#include "st_internal.h"
#include "ubtest.h"

#include <stdlib.h>

enum { NKEYS = 96 };

typedef struct {
    uint32_t id, magic;
} ent;
typedef struct {
    bool held[NKEYS];
    unsigned count, evicted;
    ub_tbl *t;
} model;

/* key i: 1..40 bytes (the 13 and 15 bytes of the TA keys among them), bytes from i */
static void key_of(unsigned i, ub_key *k)
{
    static const uint8_t lens[] = { 13, 15, 40, 1, 8, 9, 16, 24, 7, 33, 13, 15 };
    k->len = 0;
    memset(k->b, 0xA5, sizeof k->b); /* bytes past the length must not matter */
    unsigned n = lens[i % sizeof lens];
    for (unsigned j = 0; j < n; j++) k->b[j] = (uint8_t)(i * 37u + j * (i % 7u == 0 ? 0u : 1u));
    k->len = (uint8_t)n;
}

static unsigned id_of(const ub_tent *e)
{
    for (unsigned i = 0; i < NKEYS; i++) {
        ub_key k;
        key_of(i, &k);
        if (k.len == e->key.len && memcmp(k.b, e->key.b, k.len) == 0) return i;
    }
    return NKEYS;
}

static void on_evict(void *mod, ub_tent *e)
{
    model *m = mod;
    unsigned i = id_of(e);
    CHECK(i < NKEYS && m->held[i]);
    if (i < NKEYS) m->held[i] = false;
    m->count--;
    m->evicted++;
}

static bool check_all(model *m)
{
    bool ok = m->t->count == m->count;
    for (unsigned i = 0; i < NKEYS; i++) {
        ub_key k;
        key_of(i, &k);
        ent *d = ub_tbl_find(m->t, &k);
        ok = ok && (m->held[i] ? d && d->id == i && d->magic == 0xC0FFEEu : !d);
    }
    return ok;
}

static void run(uint32_t max, unsigned steps, uint32_t seed)
{
    ub_tbl t;
    model m = { .t = &t };
    CHECK_EQ(ub_tbl_init(&t, "test", max, sizeof(ent)), 0);
    t.on_evict = on_evict;
    t.mod = &m;
    unsigned bad = 0, last[2] = { 0, 1 }, gets = 0, removes = 0;
    for (unsigned s = 0; s < steps; s++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 16, op = r % 10;
        /* half of the lookups ask for one of the two keys asked for last (the memo's case) */
        unsigned i = (r >> 4) % 2 ? last[(r >> 5) & 1] : (r >> 6) % NKEYS;
        ub_key k;
        key_of(i, &k);
        if (op < 5) { /* get */
            bool created = false;
            ent *d = ub_tbl_get(&t, &k, &created);
            if (!d || created == m.held[i]) bad++;
            if (d && created) {
                d->id = i;
                d->magic = 0xC0FFEEu;
                m.held[i] = true;
                m.count++;
            }
            if (d && (d->id != i || d->magic != 0xC0FFEEu)) bad++;
            gets++;
        } else if (op < 8) { /* find */
            ent *d = ub_tbl_find(&t, &k);
            if (m.held[i] ? !d || d->id != i : d != NULL) bad++;
        } else if (m.held[i]) { /* remove */
            ent *d = ub_tbl_find(&t, &k);
            if (!d) {
                bad++;
            } else {
                ub_tbl_remove(&t, d);
                m.held[i] = false;
                m.count--;
                removes++;
            }
        }
        last[1] = last[0];
        last[0] = i;
        if (s % 97 == 0 && !check_all(&m)) bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK(check_all(&m));
    CHECK(t.count <= max);
    CHECK(gets > steps / 3 && removes > steps / 40);
    if (max < NKEYS) CHECK(m.evicted > 0); /* the eviction path ran */
    /* iteration: every entry once, in the order of a table that holds the same keys from scratch */
    ub_tbl u;
    CHECK_EQ(ub_tbl_init(&u, "copy", max, sizeof(ent)), 0);
    for (unsigned i = NKEYS; i-- > 0;) {
        if (!m.held[i]) continue;
        ub_key k;
        key_of(i, &k);
        ent *d = ub_tbl_get(&u, &k, NULL);
        if (d) d->id = i;
    }
    uint32_t it1 = 0, it2 = 0;
    unsigned n = 0, same = 0;
    for (ent *a; (a = ub_tbl_next(&t, &it1)) != NULL; n++) {
        ent *b = ub_tbl_next(&u, &it2);
        same += b && b->id == a->id;
    }
    CHECK_EQ(n, m.count);
    CHECK_EQ(same, m.count);
    ub_tbl_free(&u);
    ub_tbl_free(&t);
}

int main(void)
{
    run(12, 20000, 1);  /* 16 slots, then evictions at full size */
    run(40, 40000, 7);  /* grows 16 -> 64 slots */
    run(NKEYS, 40000, 11); /* never full: inserts and removals only */
    return ub_test_finish();
}
