/* rpc_out.c - the "RPC servers" and "RPC calls" sections as text and JSON (sections.h). */
#include "export/sections/sections.h"
#include "export/fmt/json_fmt.h"

void opscope_rpc_write_json(opscope_out_t *w, const opscope_rpc_t *r) {
    size_t n_servers = opscope_rpc_n_servers(r), n_calls = opscope_rpc_n_calls(r);
    if (!n_servers) return;
    uint64_t sv[OPSCOPE_RPC_SERVER_N], cv[OPSCOPE_RPC_CALL_N];
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "rpc");
    opscope_jw_arr(&j, "servers");
    for (size_t s = 0; s < n_servers; s++) {
        const opscope_rpc_server *v = opscope_rpc_server_at(r, (size_t)s);
        opscope_jw_nl(&j);
        opscope_jw_item_obj(&j);
        opscope_jw_str(&j, "process", v->process);
        opscope_jw_str(&j, "endpoint", v->endpoint[0] ? v->endpoint : NULL);
        opscope_rpc_server_values(v, sv);
        for (size_t i = 0; i < OPSCOPE_RPC_SERVER_N; i++) opscope_jw_u64(&j, opscope_rpc_server_names[i], sv[i]);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "calls");
    for (size_t k = 0; k < n_calls; k++) {
        const opscope_rpc_call *c = opscope_rpc_call_at(r, k);
        opscope_jw_nl(&j);
        opscope_jw_item_obj(&j);
        opscope_jw_str(&j, "endpoint", opscope_rpc_call_endpoint(r, k));
        opscope_jw_str(&j, "server", c->server >= 0 ? opscope_rpc_server_at(r, (size_t)c->server)->process : NULL);
        opscope_rpc_call_values(c, cv);
        for (size_t i = 0; i < OPSCOPE_RPC_CALL_N; i++) opscope_jw_u64(&j, opscope_rpc_call_names[i], cv[i]);
        if (c->server >= 0) opscope_jw_u64(&j, "compute_start_ns", c->compute_start_ns);
        else opscope_jw_null(&j, "compute_start_ns");
        opscope_jw_bool(&j, "end_known", c->end_known);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
}

static void ms(opscope_out_t *w, uint64_t ns) { opscope_out_printf(w, "%10.3f", (double)ns / 1e6); }

void opscope_rpc_write_text(opscope_out_t *w, const opscope_rpc_t *r, size_t max_calls) {
    size_t n_servers = opscope_rpc_n_servers(r), n_calls = opscope_rpc_n_calls(r);
    if (!n_servers) return;
    opscope_out_str(w, "\nRPC servers (client calls: submit, server compute, and the rest = network,\n"
                       "serialisation and waiting; copies = tensor set/get to the endpoint)\n");
    opscope_out_printf(w, "  %-32s %-22s %6s %10s %10s %10s %10s %7s %10s %10s %9s\n", "server",
                       "endpoint", "calls", "call ms", "submit ms", "compute ms", "other ms",
                       "copies", "copy MB", "copy ms", "inside");
    for (size_t s = 0; s < n_servers; s++) {
        const opscope_rpc_server *v = opscope_rpc_server_at(r, (size_t)s);
        opscope_out_printf(w, "  %-32s %-22s %6llu ", v->process, v->endpoint[0] ? v->endpoint : "?",
                           (unsigned long long)v->calls);
        ms(w, v->call_ns);
        opscope_out_char(w, ' ');
        ms(w, v->submit_ns);
        opscope_out_char(w, ' ');
        ms(w, v->compute_ns);
        opscope_out_char(w, ' ');
        ms(w, v->other_ns);
        opscope_out_printf(w, " %7llu %10.3f ", (unsigned long long)v->copies, (double)v->copy_bytes / 1e6);
        ms(w, v->copy_ns);
        opscope_out_printf(w, " %4llu/%-4llu\n", (unsigned long long)v->graphs_inside,
                           (unsigned long long)v->graphs);
        if (v->graphs > v->graphs_inside)
            opscope_out_printf(w, "    %llu graph(s) outside every call of this client (another client's work, or a\n"
                                  "    misalignment), by up to %.3f ms\n",
                               (unsigned long long)(v->graphs - v->graphs_inside),
                               (double)v->max_outside_ns / 1e6);
    }
    size_t n = n_calls < max_calls ? n_calls : max_calls;
    if (!n) return;
    opscope_out_printf(w, "\nRPC calls (the first %zu of %zu)\n", n, n_calls);
    opscope_out_printf(w, "  %5s %-22s %14s %10s %10s %10s %10s %7s %10s\n", "call", "endpoint", "start ms",
                       "call ms", "submit ms", "compute ms", "other ms", "copies", "copy ms");
    uint64_t t0 = opscope_rpc_call_at(r, 0)->start_ns;
    for (size_t k = 0; k < n; k++) {
        const opscope_rpc_call *c = opscope_rpc_call_at(r, k);
        uint64_t span_ns = c->end_ns - c->start_ns;
        opscope_out_printf(w, "  %5zu %-22s %14.3f ", k, opscope_rpc_call_endpoint(r, k), (double)(c->start_ns - t0) / 1e6);
        ms(w, span_ns);
        opscope_out_char(w, ' ');
        ms(w, c->submit_ns);
        opscope_out_char(w, ' ');
        ms(w, c->compute_ns);
        opscope_out_char(w, ' ');
        ms(w, span_ns > c->compute_ns ? span_ns - c->compute_ns : 0);
        opscope_out_printf(w, " %7llu ", (unsigned long long)c->copies);
        ms(w, c->copy_ns);
        opscope_out_str(w, c->end_known ? "\n" : "  (no wait recorded)\n");
    }
}
