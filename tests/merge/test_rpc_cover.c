/* test_rpc_cover.c - the client RPC time a merged profile's servers cover (analyze/rpc/rpc_cover.h):
 * roles from backends, the sweep's overlaps against unions worked out by hand, records out of
 * order, more open client records than kept. */
#include "test.h"
#include "analyze/rpc/rpc_cover.h"

typedef struct credits {
    uint64_t by_group[128];
    uint64_t calls;
} credits;

static void credit(void *ud, const opscope_rpc_cover_ref *ref, uint64_t ns) {
    credits *c = ud;
    c->by_group[ref->group] += ns;
    c->calls++;
}

static void add(opscope_rpc_cover *c, credits *cr, opscope_rpc_role role, uint64_t t0, uint64_t t1,
                long group) {
    opscope_rpc_cover_ref ref = {group, -1, 1};
    opscope_rpc_cover_add(c, role, t0, t1, &ref, credit, cr);
}

static int test_roles(void) {
    opscope_rpc_cover c = {0};
    /* before an RPC backend is described nothing has a role */
    ASSERT_EQ_INT(opscope_rpc_cover_role(&c, "CPU", "vm/ggml-rpc-server"), OPSCOPE_RPC_ROLE_NONE);
    opscope_rpc_cover_backend(&c, "CPU", "vm/llama-completion");
    ASSERT_TRUE(c.client == NULL);
    opscope_rpc_cover_backend(&c, "RPC0[127.0.0.1:50052]", "vm/llama-completion");
    ASSERT_EQ_INT(opscope_rpc_cover_role(&c, "RPC0[127.0.0.1:50052]", "vm/llama-completion"),
                  OPSCOPE_RPC_ROLE_CLIENT);
    ASSERT_EQ_INT(opscope_rpc_cover_role(&c, "CPU", "vm/llama-completion"), OPSCOPE_RPC_ROLE_NONE);
    ASSERT_EQ_INT(opscope_rpc_cover_role(&c, "CPU", "vm/ggml-rpc-server"), OPSCOPE_RPC_ROLE_SERVER);
    ASSERT_EQ_INT(opscope_rpc_cover_role(&c, "CPU", NULL), OPSCOPE_RPC_ROLE_NONE);
    /* a single profile: an RPC backend without a process makes no client */
    opscope_rpc_cover d = {0};
    opscope_rpc_cover_backend(&d, "RPC0[127.0.0.1:50052]", NULL);
    ASSERT_EQ_INT(opscope_rpc_cover_role(&d, "RPC0[127.0.0.1:50052]", NULL), OPSCOPE_RPC_ROLE_NONE);
    return 0;
}

static int test_overlaps(void) {
    /* servers [50,130) [120,150) [170,260): union [50,150) [170,260).
     * client 0 [100,200): [100,150) + [170,200) = 80; client 1 [250,300): [250,260) = 10;
     * client 2 [400,450): nothing after it */
    opscope_rpc_cover c = {0};
    credits cr = {{0}, 0};
    add(&c, &cr, OPSCOPE_RPC_ROLE_SERVER, 50, 130, 0);
    add(&c, &cr, OPSCOPE_RPC_ROLE_CLIENT, 100, 200, 0);
    add(&c, &cr, OPSCOPE_RPC_ROLE_NONE, 110, 900, 0); /* the client's CPU op: no role */
    add(&c, &cr, OPSCOPE_RPC_ROLE_SERVER, 120, 150, 0);
    add(&c, &cr, OPSCOPE_RPC_ROLE_SERVER, 170, 260, 0);
    add(&c, &cr, OPSCOPE_RPC_ROLE_CLIENT, 250, 300, 1);
    add(&c, &cr, OPSCOPE_RPC_ROLE_CLIENT, 400, 450, 2);
    ASSERT_EQ_U64(cr.by_group[0], 80);
    ASSERT_EQ_U64(cr.by_group[1], 10);
    ASSERT_EQ_U64(cr.by_group[2], 0);
    ASSERT_TRUE(!c.unsorted);
    return 0;
}

static int test_unsorted(void) {
    opscope_rpc_cover c = {0};
    credits cr = {{0}, 0};
    add(&c, &cr, OPSCOPE_RPC_ROLE_SERVER, 100, 200, 0);
    add(&c, &cr, OPSCOPE_RPC_ROLE_CLIENT, 50, 150, 0); /* starts before the last start */
    ASSERT_TRUE(c.unsorted);
    add(&c, &cr, OPSCOPE_RPC_ROLE_CLIENT, 300, 400, 0);
    add(&c, &cr, OPSCOPE_RPC_ROLE_SERVER, 310, 390, 0);
    ASSERT_EQ_U64(cr.calls, 0); /* nothing credited once out of order */
    return 0;
}

static int test_open_cap(void) {
    /* more client records open at once than kept: the ones kept are credited in full */
    opscope_rpc_cover c = {0};
    credits cr = {{0}, 0};
    size_t n = OPSCOPE_RPC_COVER_OPEN + 1;
    for (size_t i = 0; i < n; i++) add(&c, &cr, OPSCOPE_RPC_ROLE_CLIENT, i, 1000 + i, (long)i);
    add(&c, &cr, OPSCOPE_RPC_ROLE_SERVER, 100, 200, 0);
    ASSERT_EQ_U64(cr.calls, OPSCOPE_RPC_COVER_OPEN);
    ASSERT_EQ_U64(cr.by_group[0], 0); /* the one ending first was let go */
    for (size_t i = 1; i < n; i++) ASSERT_EQ_U64(cr.by_group[i], 100);
    return 0;
}

TEST_MAIN(TEST(test_roles), TEST(test_overlaps), TEST(test_unsorted), TEST(test_open_cap))
