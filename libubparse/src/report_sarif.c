/* SARIF 2.1.0 audit report, shaped for code-scanning upload (GitHub) as is (issue #10 item 7):
 *   - driver.rules: the whole rule set, each with help (text + markdown) and, for catalogue rules,
 *     helpUri = the rule's anchor in docs/rules.md (UBPARSE_RULES_URL or ub_report_info.help_uri);
 *   - originalUriBaseIds SRCROOT (the current directory unless ub_report_info.srcroot) and artifact
 *     URIs relative to it (absolute file URIs for inputs outside it);
 *   - each result's physical location is the capture file with region.startLine = the finding's frame
 *     number in that file (Wireshark's frame number), plus "frame N" as a logical location; related
 *     frames are relatedLocations the same way; a finding raised by a script also points at the
 *     script's file and line (a second location);
 *   - partialFingerprints "ubFindingHash/v1": a hash of the rule id, state key, detail, message and
 *     script file — never the frame — plus ":N", the occurrence of that hash in the report, so the
 *     same findings of a re-uploaded capture are recognised as the same alerts;
 *   - run properties and an invocation notification carry the evictions (INCOMPLETE). */
#include "report_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATHMAX 4096

/* ---------------------------------------------------------------- URIs */
static void uri_enc(FILE *f, const char *p)
{
    for (const unsigned char *s = (const unsigned char *)p; *s; s++) {
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("-._~/", *s))
            fputc(*s, f);
        else fprintf(f, "%%%02X", *s);
    }
}

/* lexical normalisation of an absolute path: "//", "/./" and "/x/../" removed */
static void norm_path(char *p)
{
    char out[PATHMAX];
    size_t o = 0;
    const char *s = p;
    while (*s) {
        while (*s == '/') s++;
        if (!*s) break;
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 1 && s[0] == '.') {
            /* skip */
        } else if (n == 2 && s[0] == '.' && s[1] == '.') {
            while (o > 0 && out[o - 1] != '/') o--;
            if (o > 0) o--; /* the slash */
        } else if (o + 1 + n < sizeof out) {
            out[o++] = '/';
            memcpy(out + o, s, n);
            o += n;
        }
        s += n;
    }
    if (o == 0) out[o++] = '/';
    out[o] = 0;
    memcpy(p, out, o + 1);
}

/* dst = a + "/" + b (b may be NULL), truncated to PATHMAX - 1 */
static void path_join(char *dst, const char *a, const char *b)
{
    size_t o = 0;
    for (const char *p = a; *p && o + 1 < PATHMAX; p++) dst[o++] = *p;
    if (b) {
        if (o + 1 < PATHMAX) dst[o++] = '/';
        for (const char *p = b; *p && o + 1 < PATHMAX; p++) dst[o++] = *p;
    }
    dst[o] = 0;
}

typedef struct {
    char root[PATHMAX]; /* absolute, normalised, no trailing slash (except "/") */
    char cwd[PATHMAX];
} uctx;

static void uctx_init(uctx *u, const ub_report_info *ri)
{
    if (!getcwd(u->cwd, sizeof u->cwd)) path_join(u->cwd, "/", NULL);
    if (ri->srcroot && ri->srcroot[0] == '/') path_join(u->root, ri->srcroot, NULL);
    else if (ri->srcroot && ri->srcroot[0]) path_join(u->root, u->cwd, ri->srcroot);
    else path_join(u->root, u->cwd, NULL);
    norm_path(u->root);
}

/* "uri": "...", "uriBaseId": "SRCROOT" (or an absolute file URI) of a file path */
static void artifact_uri(FILE *f, const uctx *u, const char *path)
{
    if (strcmp(path, "-") == 0) {
        fputs("\"uri\": \"stdin\"", f);
        return;
    }
    char abs[PATHMAX];
    if (path[0] == '/') path_join(abs, path, NULL);
    else path_join(abs, u->cwd, path);
    norm_path(abs);
    size_t rl = strlen(u->root);
    const char *rel = NULL;
    if (strcmp(u->root, "/") == 0) rel = abs + 1;
    else if (strncmp(abs, u->root, rl) == 0 && abs[rl] == '/') rel = abs + rl + 1;
    fputs("\"uri\": \"", f);
    if (rel) {
        uri_enc(f, rel);
        fputs("\", \"uriBaseId\": \"SRCROOT\"", f);
    } else {
        fputs("file://", f);
        uri_enc(f, abs);
        fputc('"', f);
    }
}

/* ---------------------------------------------------------------- fingerprints */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    h ^= 0xff; /* field separator */
    h *= 0x100000001b3ull;
    return h;
}

static uint64_t finding_hash(const ub_rule *ru, const ub_finding *x)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv(h, ru ? ru->id : "?");
    h = fnv(h, x->key);
    h = fnv(h, x->keytext);
    h = fnv(h, x->detail);
    h = fnv(h, x->message);
    h = fnv(h, x->src_uri);
    return h;
}

/* occurrences per hash (open addressing; sized for every result of the report) */
typedef struct {
    uint64_t *h;
    uint32_t *n;
    size_t cap;
} occ_t;

static uint32_t occ_next(occ_t *o, uint64_t h)
{
    if (!o->cap) return 1;
    for (size_t i = (size_t)(h ^ h >> 29) & (o->cap - 1);; i = (i + 1) & (o->cap - 1)) {
        if (!o->n[i]) {
            o->h[i] = h;
            return o->n[i] = 1;
        }
        if (o->h[i] == h) return ++o->n[i];
    }
}

/* ---------------------------------------------------------------- locations */
/* the input holding a frame and the frame's number in it */
static unsigned input_of(const ub_report_info *ri, uint64_t frame, uint64_t *local)
{
    unsigned best = 0;
    *local = frame;
    if (!ri->first_frames || ri->ninputs < 2) return 0;
    for (unsigned i = 0; i < ri->ninputs; i++)
        if (ri->first_frames[i] && ri->first_frames[i] <= frame && ri->first_frames[i] >= ri->first_frames[best]) best = i;
    if (ri->first_frames[best] && frame >= ri->first_frames[best]) *local = frame - ri->first_frames[best] + 1;
    return best;
}

static void frame_location(FILE *f, const uctx *u, const ub_report_info *ri, uint64_t frame)
{
    uint64_t local;
    unsigned in = input_of(ri, frame, &local);
    fputs("\"physicalLocation\": {\"artifactLocation\": {", f);
    artifact_uri(f, u, ub_rep_input(ri, in));
    fprintf(f, ", \"index\": %u}", in);
    if (local >= 1) fprintf(f, ", \"region\": {\"startLine\": %" PRIu64 "}", local);
    fprintf(f, "}, \"logicalLocations\": [{\"name\": \"frame %" PRIu64 "\", \"kind\": \"element\"}]", frame);
}

static void rule_help(FILE *f, const ub_rule *ru, const char *base, bool catalogue)
{
    char anchor[80];
    size_t k = 0;
    for (const char *p = ru->id; *p && k + 1 < sizeof anchor; p++)
        anchor[k++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    anchor[k] = 0;
    char *text = NULL, *md = NULL;
    size_t tl = 0, ml = 0;
    FILE *t = open_memstream(&text, &tl), *m = open_memstream(&md, &ml);
    if (t && m) {
        fprintf(t, "%s %s. Layer: %s. Spec: %s. Evidence: %s.", ru->id, ru->title, ru->layer, ru->spec[0] ? ru->spec : "-",
                ru->evidence[0] ? ru->evidence : "-");
        fprintf(m, "**%s** %s\n\n- layer: %s\n- spec: %s\n- evidence: %s", ru->id, ru->title, ru->layer,
                ru->spec[0] ? ru->spec : "-", ru->evidence[0] ? ru->evidence : "-");
        if (catalogue) {
            fprintf(t, " Reference: %s#%s", base, anchor);
            fprintf(m, "\n\n[Rule reference](%s#%s)", base, anchor);
        } else {
            fputs(" Rule defined at run time (script).", t);
            fputs("\n\nRule defined at run time (script).", m);
        }
    }
    if (t) fclose(t);
    if (m) fclose(m);
    fputs(", \"help\": {\"text\": ", f);
    ub_rep_json_str(f, text ? text : ru->title);
    fputs(", \"markdown\": ", f);
    ub_rep_json_str(f, md ? md : ru->title);
    fputc('}', f);
    if (catalogue) {
        fputs(", \"helpUri\": \"", f);
        for (const char *p = base; *p; p++)
            if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) fprintf(f, "%%%02X", (unsigned char)*p);
            else fputc(*p, f);
        fprintf(f, "#%s\"", anchor);
    }
    free(text);
    free(md);
}

/* ---------------------------------------------------------------- the report */
void ub_rep_sarif(FILE *f, const ub_collect *c, const ub_report_info *ri, const ub_rep_sum *s)
{
    uctx *u = malloc(sizeof *u);
    if (!u) return;
    uctx_init(u, ri);
    const char *tool = ri->tool ? ri->tool : "ubparse";
    const char *base = ri->help_uri && *ri->help_uri ? ri->help_uri : UBPARSE_RULES_URL;
    unsigned nbuiltin = ub_rule_count();
    fputs("{\n \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n \"version\": \"2.1.0\",\n \"runs\": [{\n"
          "  \"tool\": {\"driver\": {\"name\": ",
          f);
    ub_rep_json_str(f, tool);
    fputs(", \"version\": \"" UBPARSE_VERSION "\", \"semanticVersion\": \"" UBPARSE_VERSION "\",\n   \"rules\": [", f);
    for (unsigned r = 0; r < s->nrules; r++) {
        const ub_rule *ru = ub_ruleset_get(s->rs, r);
        fputs(r ? ",\n    {\"id\": " : "\n    {\"id\": ", f);
        ub_rep_json_str(f, ru->id);
        fputs(", \"shortDescription\": {\"text\": ", f);
        ub_rep_json_str(f, ru->title);
        char full[768];
        snprintf(full, sizeof full, "%s (%s; %s). Evidence: %s.", ru->title, ru->layer, ru->spec, ru->evidence);
        fputs("}, \"fullDescription\": {\"text\": ", f);
        ub_rep_json_str(f, full);
        fputc('}', f);
        rule_help(f, ru, base, r < nbuiltin);
        fprintf(f, ", \"defaultConfiguration\": {\"level\": \"%s\"}, \"properties\": {\"layer\": ", ub_rep_sev(ru->severity));
        ub_rep_json_str(f, ru->layer);
        fputs(", \"spec\": ", f);
        ub_rep_json_str(f, ru->spec);
        fputs("}}", f);
    }
    fputs("\n   ]}},\n  \"originalUriBaseIds\": {\"SRCROOT\": {\"uri\": \"file://", f);
    uri_enc(f, u->root);
    fputs(strcmp(u->root, "/") ? "/\"}},\n  \"artifacts\": [" : "\"}},\n  \"artifacts\": [", f);
    for (unsigned i = 0; i < (ri->ninputs ? ri->ninputs : 1); i++) {
        fputs(i ? ", {\"location\": {" : "{\"location\": {", f);
        artifact_uri(f, u, ub_rep_input(ri, i));
        fputs("}}", f);
    }
    fprintf(f, "],\n  \"invocations\": [{\"executionSuccessful\": true, \"exitCode\": %d", s->status);
    if (s->evicted) {
        const ub_rule *ev = ub_rule_by_id("UB-ST-001");
        fprintf(f, ",\n    \"toolExecutionNotifications\": [{\"level\": \"%s\", \"message\": {\"text\": ",
                s->incomplete_counts ? "error" : "warning");
        char msg[600];
        snprintf(msg, sizeof msg, "INCOMPLETE: %s", s->why);
        ub_rep_json_str(f, msg);
        fprintf(f, "}, \"associatedRule\": {\"id\": \"UB-ST-001\", \"index\": %u}}]", ev ? ev->idx : 0);
    }
    fprintf(f, "}],\n  \"properties\": {\"records\": %" PRIu64 ", \"packets\": %" PRIu64 ", \"findings\": %" PRIu64
               ", \"failOn\": \"%s\", \"resultsPerRuleLimit\": %u,\n   \"result\": \"%s\", \"evictions\": ",
            ri->records, ri->packets, s->total, ub_rep_fail_name(ri->fail_on), ub_collect_examples_max(c),
            ub_rep_result_name(s->result));
    ub_rep_json_evictions(f, ri, " ");
    if (s->evicted) {
        fputs(", \"incomplete\": ", f);
        ub_rep_json_str(f, s->why);
    }
    fputs("},\n  \"results\": [", f);

    size_t nres = 0;
    for (unsigned i = 0; i < s->fired; i++) {
        unsigned n;
        ub_collect_examples(c, s->order[i].rule, &n);
        nres += n;
    }
    occ_t occ = { NULL, NULL, 0 };
    size_t cap = 16;
    while (cap < 2 * nres) cap <<= 1;
    occ.h = calloc(cap, sizeof *occ.h);
    occ.n = calloc(cap, sizeof *occ.n);
    if (occ.h && occ.n) occ.cap = cap;
    bool first = true;
    char msg[1600], line[1400];
    for (unsigned i = 0; i < s->fired; i++) {
        unsigned r = s->order[i].rule;
        const ub_rule *ru = ub_ruleset_get(s->rs, r);
        unsigned nex;
        const ub_finding *ex = ub_collect_examples(c, r, &nex);
        for (unsigned k = 0; k < nex; k++) {
            const ub_finding *x = &ex[k];
            ub_finding_text(x, false, line, sizeof line);
            snprintf(msg, sizeof msg, "%s (frame %" PRIu64 ")%s%s", ru->title, x->frame, line[0] ? ": " : "", line);
            fputs(first ? "\n   {\"ruleId\": " : ",\n   {\"ruleId\": ", f);
            first = false;
            ub_rep_json_str(f, ru->id);
            fprintf(f, ", \"ruleIndex\": %u, \"level\": \"%s\", \"message\": {\"text\": ", r, ub_rep_sev(x->severity));
            ub_rep_json_str(f, msg);
            fputs("},\n    \"locations\": [{", f);
            frame_location(f, u, ri, x->frame);
            fputc('}', f);
            if (x->src_uri && *x->src_uri) {
                fputs(", {\"physicalLocation\": {\"artifactLocation\": {", f);
                artifact_uri(f, u, x->src_uri);
                fputc('}', f);
                if (x->src_line) fprintf(f, ", \"region\": {\"startLine\": %" PRIu32 "}", x->src_line);
                fputs("}, \"message\": {\"text\": \"where the check is written\"}}", f);
            }
            fputc(']', f);
            uint64_t h = finding_hash(ru, x);
            fprintf(f, ",\n    \"partialFingerprints\": {\"ubFindingHash/v1\": \"%016" PRIx64 ":%" PRIu32 "\"}", h, occ_next(&occ, h));
            if (x->nframes) {
                fputs(",\n    \"relatedLocations\": [", f);
                for (unsigned q = 0; q < x->nframes && q < UB_FINDING_FRAMES; q++) {
                    fprintf(f, "%s{\"id\": %u, ", q ? ", " : "", q + 1);
                    frame_location(f, u, ri, x->frames[q]);
                    fputs(", \"message\": {\"text\": \"related frame\"}}", f);
                }
                fputc(']', f);
            }
            fprintf(f, ",\n    \"properties\": {\"frame\": %" PRIu64 ", \"values\": [", x->frame);
            for (unsigned q = 0; q < x->nvalues && q < 4; q++) fprintf(f, "%s%" PRId64, q ? ", " : "", x->values[q]);
            fputs("], \"detail\": ", f);
            ub_rep_json_str(f, x->detail);
            fputs(", \"keytext\": ", f);
            ub_rep_json_str(f, x->keytext);
            if (x->message) {
                fputs(", \"message\": ", f);
                ub_rep_json_str(f, x->message);
            }
            if (x->src_uri) {
                fputs(", \"source\": {\"uri\": ", f);
                ub_rep_json_str(f, x->src_uri);
                fprintf(f, ", \"line\": %" PRIu32 "}", x->src_line);
            }
            fputs("}}", f);
        }
    }
    fputs("\n  ]\n }]\n}\n", f);
    free(occ.h);
    free(occ.n);
    free(u);
}
