/* test_kernel_name.c - short forms of long C++ kernel names (analyze/record/kernel_name.h) and the
 * unique table labels built from them (export/fmt/name_labels.h). The names are real kernel names
 * from the Kineto traces in tests/kineto/traces (a100_*, amd_mi250_*, recsys_sampled_*); each
 * expected short form is written here by hand from the rules in kernel_name.h. */
#include "analyze/record/kernel_name.h"
#include "export/fmt/name_labels.h"
#include "analyze/ggml/stats.h"
#include "test.h"

#include <stdlib.h>

static const struct {
    const char *full, *want;
} real[] = {
    {
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at"
     "::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<c"
     "har*, 3>)",
     "at::native::vectorized_elementwise_kernel<\xe2\x80\xa6" "CUDAFunctor_add\xe2\x80\xa6" ">"},
    {
     "void at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(at::Te"
     "nsorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::"
     "{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::sigmoid_kernel_cuda(at"
     "::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() con"
     "st::{lambda(float)#1}, at::detail::Array<char*, 2>)",
     "at::native::vectorized_elementwise_kernel<\xe2\x80\xa6" "sigmoid_kernel_cuda\xe2\x80\xa6" ">"},
    {
     "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float"
     ", float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >"
     "(int, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFun"
     "ctor<float> >, at::detail::Array<char*, 2>)",
     "at::native::vectorized_elementwise_kernel<\xe2\x80\xa6" "MulFunctor\xe2\x80\xa6" ">"},
    {
     "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, "
     "long, float const*, float const*, float const*, float const*, float*, float*)",
     "at::native::GammaBetaBackwardCUDAKernel<float, float>"},
    {
     "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x256_32x3_nn_align1>(cutlass_80_te"
     "nsorop_s1688gemm_128x256_32x3_nn_align1::Params)",
     "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x256_32x3_nn_align1>"},
    {
     "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
     "ncclKernel_AllReduce_RING_LL_Sum_float"},
    {
     "void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, true, true, "
     "false>(cublasLt::cublasSplitKParams<float>, float const*, float const*, float*, float co"
     "nst*, float const*, float const*, float const*, float*, void*, long, float*, int*)",
     "cublasLt::splitKreduce_kernel<\xe2\x80\xa6" ">"},
    {
     "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::nativ"
     "e::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::oper"
     "ator()() const::{lambda()#2}::operator()() const::{lambda(float, float, float)#1}>(at::T"
     "ensorIteratorBase&, at::native::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scala"
     "r const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(f"
     "loat, float, float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast"
     "<at::native::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda("
     ")#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float, float)"
     "#1}>(at::TensorIteratorBase&, at::native::mse_backward_cuda_kernel(at::TensorIterator&, "
     "c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const:"
     ":{lambda(float, float, float)#1} const&)::{lambda(int)#1})",
     "at::native::elementwise_kernel<\xe2\x80\xa6" "mse_backward_cuda_kernel\xe2\x80\xa6" ">"},
    {
     "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, flo"
     "at, float, false, true, true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<"
     "float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatche"
     "d<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasG"
     "emvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)",
     "internal::gemvx::kernel<\xe2\x80\xa6" "cublasGemvTensorStridedBatched\xe2\x80\xa6" ">"},
    {
     "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrap"
     "per_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator"
     "&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at:"
     ":native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()("
     "at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)",
     "at::native::reduce_kernel<\xe2\x80\xa6" "sum_functor\xe2\x80\xa6" ">"},
};

static int test_real_names(void) {
    for (size_t i = 0; i < sizeof real / sizeof *real; i++) {
        char buf[512];
        size_t n = opscope_kernel_name_short(buf, sizeof buf, real[i].full);
        ASSERT_EQ_STR(buf, real[i].want);
        ASSERT_EQ_U64(n, strlen(real[i].want));
        ASSERT_LT_U64(n, strlen(real[i].full));
    }
    return 0;
}

/* Names that are no C++ signatures come back as they are. */
static int test_unchanged(void) {
    static const char *const same[] = {
        "Memcpy HtoD (Pageable -> Device)", "Memset (Device)", "ampere_sgemm_128x64_nn",
        "triton_poi_fused_add_cos_sin_0", "MUL_MAT", "copy_H2D", "event_wait",
        /* one long name in two pieces, parenthesised so clang sees the concatenation is meant */
        ("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16"
         "_stage4_warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel_cudnn"),
        ""};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        char buf[256];
        ASSERT_EQ_U64(opscope_kernel_name_short(buf, sizeof buf, same[i]), strlen(same[i]));
        ASSERT_EQ_STR(buf, same[i]);
    }
    return 0;
}

/* A small buffer: snprintf-style length, NUL-terminated, never a partial UTF-8 "…". */
static int test_small_buffer(void) {
    const char *full = real[0].full; /* -> at::native::vectorized_elementwise_kernel<…CUDAFunctor_add…> */
    char buf[64];
    ASSERT_EQ_U64(opscope_kernel_name_short(buf, 10, full), strlen(real[0].want));
    ASSERT_EQ_STR(buf, "at::nativ");
    /* 41 bytes of name, then "<" and the 3 bytes of "…": with 44 bytes, 43 fit, so "…" is
     * left out whole. */
    opscope_kernel_name_short(buf, 44, full);
    ASSERT_EQ_STR(buf, "at::native::vectorized_elementwise_kernel<");
    opscope_kernel_name_short(buf, 46, full);
    ASSERT_EQ_STR(buf, "at::native::vectorized_elementwise_kernel<\xe2\x80\xa6");
    ASSERT_EQ_U64(opscope_kernel_name_short(NULL, 0, full), strlen(real[0].want));
    /* Cut names (profilers truncate them): an unclosed list still gives a short form. */
    char cut[80];
    snprintf(cut, sizeof cut, "%.70s", real[1].full);
    opscope_kernel_name_short(buf, sizeof buf, cut);
    ASSERT_EQ_STR(buf, "at::native::vectorized_elementwise_kernel<\xe2\x80\xa6>");
    return 0;
}

static opscope_record kernel(const char *name, uint64_t dur) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = name;
    r.duration_ns = dur;
    return r;
}

/* Labels of ADD (time TA) and ADD2 (time TB) in a table of those two kernels, plus C and D. */
static opscope_name_labels_t *labels_of(opscope_stats_t **sp, const char *add, uint64_t ta,
                                        const char *add2, uint64_t tb) {
    opscope_stats_t *s = opscope_stats_new(NULL);
    if (!s) return NULL;
    opscope_record a = kernel(add, ta), b = kernel(add2, tb), c = kernel("ampere_sgemm_128x64_nn", 50),
                   d = kernel(real[3].full, 10);
    if (opscope_stats_add(s, &a) || opscope_stats_add(s, &b) || opscope_stats_add(s, &c) ||
        opscope_stats_add(s, &d) || opscope_stats_finish(s)) {
        opscope_stats_free(s);
        return NULL;
    }
    *sp = s;
    return opscope_name_labels_new(s);
}

/* Two different kernels with one short form get a tag of their full name: different tags,
 * and the same label whatever the order of the operations table (a report and a diff order
 * their tables differently); a name that needs no short form is its own label. */
static int test_labels(void) {
    const char *add = real[0].full; /* CUDAFunctor_add, 185 bytes */
    char add2[256];                  /* the same kernel with 2-wide vectors: another name */
    snprintf(add2, sizeof add2, "void at::native::vectorized_elementwise_kernel<2, %s",
             add + strlen("void at::native::vectorized_elementwise_kernel<4, "));
    const char *sh = "at::native::vectorized_elementwise_kernel<\xe2\x80\xa6" "CUDAFunctor_add\xe2\x80\xa6" ">";
    opscope_stats_t *s = NULL, *s2 = NULL;
    opscope_name_labels_t *l = labels_of(&s, add, 100, add2, 300);
    opscope_name_labels_t *l2 = labels_of(&s2, add, 300, add2, 100); /* the other order */
    ASSERT_TRUE(l != NULL && l2 != NULL);
    const char *la = opscope_name_labels_get(l, add), *lb = opscope_name_labels_get(l, add2);
    ASSERT_TRUE(strncmp(la, sh, strlen(sh)) == 0 && strncmp(lb, sh, strlen(sh)) == 0);
    ASSERT_EQ_U64(strlen(la), strlen(sh) + 6); /* " #xxxx" */
    ASSERT_TRUE(strcmp(la, lb) != 0);
    ASSERT_EQ_STR(opscope_name_labels_get(l2, add), la);
    ASSERT_EQ_STR(opscope_name_labels_get(l2, add2), lb);
    ASSERT_EQ_STR(opscope_name_labels_get(l, "ampere_sgemm_128x64_nn"), "ampere_sgemm_128x64_nn");
    ASSERT_EQ_STR(opscope_name_labels_get(l, real[3].full), "at::native::GammaBetaBackwardCUDAKernel<float, float>");
    ASSERT_EQ_STR(opscope_name_labels_get(l, "not in the profile"), "not in the profile");
    /* the legend: shortened names only, in table order */
    ASSERT_EQ_U64(opscope_name_labels_n(l), 3);
    ASSERT_EQ_STR(opscope_name_labels_full(l, 0), add2);
    ASSERT_EQ_STR(opscope_name_labels_full(l, 1), add);
    ASSERT_EQ_STR(opscope_name_labels_full(l, 2), real[3].full);
    ASSERT_NULL(opscope_name_labels_label(l, 3));
    opscope_name_labels_free(l);
    opscope_name_labels_free(l2);
    ASSERT_EQ_STR(opscope_name_labels_get(NULL, add), add);
    opscope_stats_free(s);
    opscope_stats_free(s2);
    return 0;
}

TEST_MAIN(TEST(test_real_names), TEST(test_unchanged), TEST(test_small_buffer), TEST(test_labels))
