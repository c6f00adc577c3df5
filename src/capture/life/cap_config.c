/* cap_config.c - GGML_PROFILE parsing (see cap_config.h). */
#include "capture/life/cap_config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

void opscope_cap_config_parse(const char *value, opscope_cap_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    if (!value) {
        cfg->dest = OPSCOPE_CAP_DEST_NONE;
    } else if (value[0] == '\0' || strcmp(value, "1") == 0 || strcmp(value, "stdout") == 0) {
        cfg->dest = OPSCOPE_CAP_DEST_STDOUT;
    } else if (strcmp(value, "stderr") == 0) {
        cfg->dest = OPSCOPE_CAP_DEST_STDERR;
    } else {
        cfg->dest = ends_with(value, ".txt") ? OPSCOPE_CAP_DEST_TEXT : OPSCOPE_CAP_DEST_JSON;
        if ((size_t)snprintf(cfg->path, sizeof cfg->path, "%s", value) >= sizeof cfg->path) {
            cfg->path[0] = '\0';
            cfg->dest = OPSCOPE_CAP_DEST_NONE;
            cfg->too_long = true;
        }
    }
}

bool opscope_cap_config_child(opscope_cap_config *cfg, long pid) {
    if (cfg->dest != OPSCOPE_CAP_DEST_JSON && cfg->dest != OPSCOPE_CAP_DEST_TEXT) {
        return true;
    }
    size_t n = strlen(cfg->path);
    if ((size_t)snprintf(cfg->path + n, sizeof cfg->path - n, ".%ld", pid) >= sizeof cfg->path - n) {
        cfg->path[0] = '\0';
        cfg->dest = OPSCOPE_CAP_DEST_NONE;
        cfg->too_long = true;
        return false;
    }
    return true;
}
