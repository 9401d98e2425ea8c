/* The Lua bindings (libubparse/lua, ublua.h): values seen by scripts against the C field reader on
 * every bundled capture, packet-object lifetime, the sandbox, the instruction budget and memory cap,
 * error reporting, ub.build/ub.decode against the text builder, 64-bit helpers, flow keys, and
 * script rules/findings through a real audit session. (CLI behaviour: tests/t_lua.sh.) */
#include "ubparse/audit.h"
#include "ubparse/capfile.h"
#include "ubparse/ublua.h"
#include "ubtest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

/* write a script into the temp dir, return its path */
static const char *script(const char *name, const char *text)
{
    static char path[8][512];
    static int k;
    char *p = path[k++ & 7];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    if (!f) {
        perror(p);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
    return p;
}

typedef struct host {
    ub_lua *L;
    char *out, *err;
    size_t nout, nerr;
    FILE *fo, *fe;
    ub_opts o;
} host;

static void host_new(host *h, uint64_t budget, size_t mem, unsigned max_err, bool unsafe)
{
    memset(h, 0, sizeof *h);
    h->fo = open_memstream(&h->out, &h->nout);
    h->fe = open_memstream(&h->err, &h->nerr);
    ub_opts_default(&h->o);
    ub_lua_cfg c;
    ub_lua_cfg_default(&c);
    c.opts = &h->o;
    c.out = h->fo;
    c.err = h->fe;
    c.tool = "test";
    if (budget) c.instr_limit = budget;
    if (mem) c.mem_limit = mem;
    if (max_err) c.max_errors = max_err;
    c.unsafe = unsafe;
    h->L = ub_lua_new(&c);
}
static void host_flush(host *h)
{
    fflush(h->fo);
    fflush(h->fe);
}
static void host_free(host *h)
{
    ub_lua_free(h->L);
    fclose(h->fo);
    fclose(h->fe);
    free(h->out);
    free(h->err);
}

/* feed every record of a capture (frame numbers from the file) */
static int feed(host *h, ub_audit *a, const char *cap)
{
    char err[256], path[512];
    snprintf(path, sizeof path, "%s/captures/%s", UB_SOURCE_DIR, cap);
    ub_capfile *c = ub_cap_open(path, err, sizeof err);
    if (!c) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    static ub_view v;
    ub_view_init(&v);
    ub_rec r;
    int n = 0;
    while (ub_cap_next(c, &r) == 1) {
        ub_decode(&v, &h->o, ub_entry_for_linktype(&h->o, r.linktype), r.data, r.caplen);
        ub_pktinfo pi = { r.frame, r.ts_ns, r.ifindex, r.dir };
        ub_lua_audit_packet(h->L, a, &v, &pi);
        n++;
    }
    ub_cap_close(c);
    return n;
}

/* ================================================================ values: Lua vs the C reader */
static void hexs(FILE *f, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) fprintf(f, "%02x", p[i]);
}

/* the reference: what the script below prints, computed with ub_field_value / ub_format_value */
static void reference(FILE *f, const char *cap, const ub_opts *o)
{
    char err[256], path[512];
    snprintf(path, sizeof path, "%s/captures/%s", UB_SOURCE_DIR, cap);
    ub_capfile *c = ub_cap_open(path, err, sizeof err);
    if (!c) return;
    /* unique field names in schema order (as ub.fields() lists them) */
    const char *names[4096];
    size_t nn = 0;
    for (unsigned id = 0; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (!h) continue;
        for (unsigned k = 0; k < h->nfields; k++) {
            bool dup = false;
            for (size_t i = 0; i < nn && !dup; i++) dup = strcmp(names[i], h->fields[k].abbrev) == 0;
            if (!dup && nn < 4096) names[nn++] = h->fields[k].abbrev;
        }
    }
    static ub_view v;
    ub_view_init(&v);
    ub_rec r;
    while (ub_cap_next(c, &r) == 1) {
        ub_decode(&v, o, ub_entry_for_linktype(o, r.linktype), r.data, r.caplen);
        for (size_t i = 0; i < nn; i++) {
            bool any = false;
            for (unsigned li = 0; li < v.nlayers && li < UB_MAX_LAYERS; li++) {
                const ub_layer *l = &v.layer[li];
                const ub_field *fd = NULL;
                for (unsigned k = 0; k < l->hdr->nfields && !fd; k++)
                    if (strcmp(l->hdr->fields[k].abbrev, names[i]) == 0) fd = &l->hdr->fields[k];
                ub_val x;
                if (!fd || ub_field_value(l, fd, &x) != 0) continue;
                fprintf(f, any ? "," : "%llu %s ", (unsigned long long)r.frame, names[i]);
                any = true;
                if (fd->type == UB_FT_BOOL && !(fd->flags & UB_FF_VIRTUAL)) fputs(x.u ? "true" : "false", f);
                else if (fd->type == UB_FT_UINT || fd->type == UB_FT_BOOL) fprintf(f, "%lld", (long long)x.u);
                else if (fd->type == UB_FT_BYTES) hexs(f, x.bytes, x.nbytes);
                else {
                    char b[128];
                    size_t n = ub_format_value(fd, &x, false, b, sizeof b);
                    hexs(f, (const uint8_t *)b, n);
                }
            }
            if (any) fputc('\n', f);
        }
    }
    ub_cap_close(c);
}

static const char values_lua[] =
    "local names = ub.fields()\n"
    "local fx = {}\n"
    "for i, n in ipairs(names) do fx[i] = ub.field(n) end\n"
    "local function enc(v)\n"
    "  local t = math.type(v) or type(v)\n"
    "  if t == 'integer' then return string.format('%d', v) end\n"
    "  if t == 'boolean' then return tostring(v) end\n"
    "  assert(t == 'string', 'unexpected type ' .. t)\n"
    "  return (v:gsub('.', function(c) return string.format('%02x', c:byte()) end))\n"
    "end\n"
    "function on_packet(pkt)\n"
    "  for i, f in ipairs(fx) do\n"
    "    local all = f:all(pkt)\n"
    "    local first = f(pkt)\n"
    "    assert((#all == 0) == (first == nil), 'f(pkt) and f:all(pkt) disagree')\n"
    "    assert(select('#', f(pkt)) == math.max(#all, 1), 'multiple results')\n"
    "    assert(pkt:has(names[i]) == (#all > 0) or #all == 0, 'has')\n"
    "    if #all > 0 then\n"
    "      local s = {}\n"
    "      for k, v in ipairs(all) do s[k] = enc(v) end\n"
    "      print(pkt.frame .. ' ' .. names[i] .. ' ' .. table.concat(s, ','))\n"
    "    end\n"
    "  end\n"
    "end\n";

static void test_values(void)
{
    static const char *caps[] = { "audit_txn_clean.pcapng", "cfg7_rtp.pcapng", "cfg6_enum.pcapng", "cfg6_mgmt.pcapng",
                                  "cfg5_netctl.pcapng",     "uboe.pcapng",     "cip.pcapng",       "malformed.pcapng",
                                  "multiblock.pcapng",      "dllcb.pcapng",    "urpc.pcapng",      "cfg3_ipv4.pcapng",
                                  "sll2_ubl.pcapng",        "cfg9_coherent.pcapng" };
    const char *path = script("values.lua", values_lua);
    for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
        host h;
        host_new(&h, 0, 0, 0, false);
        char err[512];
        int rc = ub_lua_load(h.L, path, NULL, err, sizeof err);
        CHECK_EQ(rc, 0);
        if (rc) fprintf(stderr, "%s\n", err);
        int n = feed(&h, NULL, caps[i]);
        CHECK(n > 0);
        host_flush(&h);
        char *ref = NULL;
        size_t nref = 0;
        FILE *f = open_memstream(&ref, &nref);
        reference(f, caps[i], &h.o);
        fclose(f);
        CHECK(nref > 100);
        CHECK_EQ(ub_lua_errors(h.L), 0);
        if (nref != h.nout || memcmp(ref, h.out, nref) != 0) {
            ub_t_fail++;
            fprintf(stderr, "%s: Lua values differ from the C reader\n", caps[i]);
            size_t k = 0;
            while (k < nref && k < h.nout && ref[k] == h.out[k]) k++;
            fprintf(stderr, "  at byte %zu: C '%.80s' / Lua '%.80s'\n", k, ref + k, h.out + k);
            if (h.nerr) fprintf(stderr, "%s", h.err);
        } else {
            ub_t_pass++;
        }
        free(ref);
        host_free(&h);
    }
}

/* ================================================================ packet objects */
static const char objects_lua[] =
    "local psn = ub.field('ub.rtph.psn')\n"
    "local op = ub.field('ub.btah.taopcode')\n"
    "local eid = ub.field('ub.eidh.seid')\n"
    "assert(op:value('Read') == 6 and op:valname(6) == 'Read' and ub.value('ub.btah.taopcode', 'Write') == 3)\n"
    "assert(psn.abbrev == 'ub.rtph.psn' and psn.name == 'PSN' and psn.type == 'uint' and psn.bits == 24)\n"
    "assert(not pcall(ub.field, 'ub.nosuch.field'))\n"
    "local kept\n"
    "function on_packet(pkt)\n"
    "  if pkt.frame == 1 then\n"
    "    kept = pkt\n"
    "    print('f1', pkt.ts, pkt.dir, pkt.len, pkt.cfg, pkt.kind, pkt.entry, psn(pkt), op(pkt), pkt:display('ub.btah.taopcode'))\n"
    "    print('f1', pkt:has('ub.btah'), pkt:has('ub.ciph'), pkt:has(psn), #pkt:raw('ub.btah'), pkt:layer('ub.btah').offset, pkt.error)\n"
    "    local l = pkt:layers()\n"
    "    print('layers', #l, l[1].abbrev, l[1].offset, l[1].len, l[#l].abbrev)\n"
    "    print('key', select(2, ub.flow_key(pkt, 'tx')), select(2, ub.flow_key(pkt, 'tp')), select(2, ub.flow_key(pkt, 'pair')))\n"
    "    assert(not pcall(function() return pkt.nosuch end))\n"
    "    assert(not pcall(function() pkt.frame = 3 end))\n"
    "  elseif pkt.frame == 2 then\n"
    "    local ok, e = pcall(function() return kept.frame end)\n"
    "    print('stale', ok, e:match('used after its callback') ~= nil)\n"
    "    print('tostring', tostring(kept), tostring(pkt))\n"
    "    local ok2 = pcall(psn, kept)\n"
    "    print('stale2', ok2)\n"
    "    print('key2', select(2, ub.flow_key(pkt, 'tp')))\n"
    "  end\n"
    "end\n"
    "function on_end()\n"
    "  print('end', pcall(function() return kept:has('ub.btah') end))\n"
    "end\n";

static void test_objects(void)
{
    host h;
    host_new(&h, 0, 0, 0, false);
    char err[512];
    int rc = ub_lua_load(h.L, script("objects.lua", objects_lua), NULL, err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) fprintf(stderr, "%s\n", err);
    CHECK(feed(&h, NULL, "audit_txn_clean.pcapng") > 2);
    ub_lua_end(h.L);
    host_flush(&h);
    CHECK_EQ(ub_lua_errors(h.L), 0);
    if (h.nerr) fprintf(stderr, "%s", h.err);
    /* frame 1 of audit_txn_clean: RTP Read TASSN 1 0x010203 -> 0x0a0b0c, 80-byte flit record */
    CHECK(strstr(h.out, "f1\t10000\tout\t80\t7\tdlldp\tflit\t1\t6\t0x06 (Read)\n") != NULL);
    CHECK(strstr(h.out, "f1\ttrue\tfalse\ttrue\t") != NULL);
    CHECK(strstr(h.out, "key\t0x010203>0x0a0b0c rc 0x20 TASSN 1\t0x010203->0x0a0b0c TPN 0x101->0x202\t0x010203<>0x0a0b0c\n") != NULL);
    CHECK(strstr(h.out, "layers\t") != NULL);
    CHECK(strstr(h.out, "stale\tfalse\ttrue\n") != NULL);
    CHECK(strstr(h.out, "tostring\tpacket(stale)\tpacket(frame 2)\n") != NULL);
    CHECK(strstr(h.out, "stale2\tfalse\n") != NULL);
    /* frame 2 is the TPACK B -> A: same channel key as the data */
    CHECK(strstr(h.out, "key2\t0x010203->0x0a0b0c TPN 0x101->0x202\n") != NULL);
    CHECK(strstr(h.out, "end\tfalse\t") != NULL);
    if (ub_t_fail) fprintf(stderr, "--- output:\n%s", h.out);
    host_free(&h);
}

/* ================================================================ sandbox */
static const char sandbox_lua[] =
    "assert(io == nil and os == nil and debug == nil and package == nil and require == nil)\n"
    "assert(dofile == nil and loadfile == nil)\n"
    "local f, e = load(string.dump(function() return 1 end))\n"
    "assert(f == nil and e:match('binary'), 'bytecode must be refused: ' .. tostring(e))\n"
    "assert(load('return 40 + 2')() == 42)\n"
    "assert(load('return x', 'c', 'bt', { x = 5 })() == 5)\n"        /* env given; 'b' is ignored */
    "gx = 7 assert(load('return gx', 'c')() == 7)\n"                 /* no env: the globals */
    "assert(not pcall(setmetatable, {}, {__gc = function() end}))\n"
    "assert(setmetatable({}, {__index = {a = 1}}).a == 1)\n"
    "assert(not pcall(collectgarbage, 'stop'))\n"
    "assert(type(collectgarbage('count')) == 'number')\n"
    "assert(string.rep('', 1e18) == '' and #string.rep('ab', 3, ',') == 8)\n"
    "assert(not pcall(string.rep, 'x', 1e15))\n"
    "print('sandbox ok', math.type(1), utf8.char(72), coroutine.running() ~= nil)\n";

static void test_sandbox(void)
{
    host h;
    host_new(&h, 0, 64 << 20, 0, false);
    char err[512];
    int rc = ub_lua_load(h.L, script("sandbox.lua", sandbox_lua), NULL, err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) fprintf(stderr, "%s\n", err);
    host_flush(&h);
    CHECK(h.out && strstr(h.out, "sandbox ok\tinteger\tH\ttrue\n"));
    host_free(&h);
    /* --lua-unsafe opens the rest */
    host_new(&h, 0, 0, 0, true);
    rc = ub_lua_load(h.L, script("unsafe.lua", "assert(io and os and debug and package and require)\nprint('unsafe ok')\n"),
                     NULL, err, sizeof err);
    CHECK_EQ(rc, 0);
    host_flush(&h);
    CHECK(h.out && strstr(h.out, "unsafe ok\n"));
    host_free(&h);
    /* os.execute in a hook: an error naming the line, never executed */
    host_new(&h, 0, 0, 0, false);
    rc = ub_lua_load(h.L, script("os.lua", "function on_packet(p)\n  os.execute('touch /tmp/ubscope-lua-pwned')\nend\n"), NULL,
                     err, sizeof err);
    CHECK_EQ(rc, 0);
    feed(&h, NULL, "cfg3_ipv4.pcapng");
    host_flush(&h);
    CHECK(strstr(h.err, "os.lua:2: attempt to index a nil value (global 'os')") != NULL);
    CHECK(access("/tmp/ubscope-lua-pwned", F_OK) != 0);
    host_free(&h);
    /* load-time errors: syntax error with file:line, missing file, error at the top level */
    host_new(&h, 0, 0, 0, false);
    CHECK_EQ(ub_lua_load(h.L, script("syntax.lua", "local x = \nfunction(\n"), NULL, err, sizeof err), -1);
    CHECK(strstr(err, "syntax.lua:") != NULL);
    if (!strstr(err, "syntax.lua:")) fprintf(stderr, "syntax error message: %s\n", err);
    CHECK_EQ(ub_lua_load(h.L, "/nonexistent/x.lua", NULL, err, sizeof err), -1);
    CHECK(strstr(err, "cannot open") != NULL);
    CHECK_EQ(ub_lua_load(h.L, script("top.lua", "local t = nil\nprint(t.x)\n"), NULL, err, sizeof err), -1);
    CHECK(strstr(err, "top.lua:2: attempt to index a nil value") != NULL);
    CHECK(strstr(err, "stack traceback") != NULL);
    CHECK_EQ(ub_lua_count(h.L), 0);
    host_free(&h);
}

/* ================================================================ budget, memory, errors */
static const char hostile_lua[] =
    "local n = 0\n"
    "function on_packet(pkt)\n"
    "  n = n + 1\n"
    "  if n == 1 then while true do end end\n"                                                   /* infinite loop */
    "  if n == 2 then while true do pcall(function() while true do end end) end end\n"           /* pcall cannot catch it */
    "  if n == 3 then while true do coroutine.resume(coroutine.create(function() while true do end end)) end end\n"
    "  if n == 4 then local t = {} for i = 1, 1e9 do t[i] = i end end\n"                         /* memory bomb */
    "  if n == 5 then local s = 'x' for i = 1, 40 do s = s .. s end end\n"                        /* string doubling */
    "  if n == 6 then local function f(x) return f(x + 1) + 1 end f(1) end\n"                    /* deep recursion */
    "  if n == 7 then error({code = 1}) end\n"                                                   /* table error object */
    "  if n == 8 then error(setmetatable({}, {__tostring = function() return 'custom object' end})) end\n"
    "  if n == 9 then coroutine.yield() end\n"                                                   /* coroutine misuse */
    "  if n == 10 then local co = coroutine.wrap(function() end) co() co() end\n"
    "  if n == 11 then error(setmetatable({}, {__tostring = function() while true do end end})) end\n"
    "  if n == 12 then print('alive', collectgarbage('count') < 4096) end\n"
    "end\n"
    "function on_end() error('boom in on_end') end\n";

static void test_hostile(void)
{
    host h;
    host_new(&h, 50000000, 32 << 20, 20, false);
    char err[512];
    int rc = ub_lua_load(h.L, script("hostile.lua", hostile_lua), NULL, err, sizeof err);
    CHECK_EQ(rc, 0);
    CHECK(feed(&h, NULL, "audit_txn_clean.pcapng") >= 12);
    ub_lua_end(h.L);
    host_flush(&h);
    CHECK_EQ(ub_lua_errors(h.L), 12);
    /* per frame: the error line of that packet names the cause (and the line where it is known) */
    static const char *const want[][2] = {
        { "(frame 1): ", "hostile.lua:4: instruction budget exceeded (50000000 instructions per callback, --lua-budget)" },
        { "(frame 2): ", "hostile.lua:5: instruction budget exceeded" },
        { "(frame 3): ", "hostile.lua:6: instruction budget exceeded" },
        { "(frame 4): ", "not enough memory: the script's memory limit was reached" },
        { "(frame 5): ", "not enough memory" },
        { "(frame 6): ", "" }, /* stack overflow or the memory limit, whichever comes first */
        { "(frame 7): ", "(error object is a table value)" },
        { "(frame 8): ", "custom object" },
        { "(frame 9): ", "attempt to yield from outside a coroutine" },
        { "(frame 10): ", "hostile.lua:13: cannot resume dead coroutine" },
        { "(frame 11): ", "hostile.lua:14: instruction budget exceeded" },
        { "lua error in on_end of ", "hostile.lua:17: boom in on_end" },
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *l = strstr(h.err, want[i][0]);
        const char *e = l ? strchr(l, '\n') : NULL;
        const char *t = l ? strstr(l, want[i][1]) : NULL;
        if (l && t && (!e || t < e)) ub_t_pass++;
        else { ub_t_fail++; fprintf(stderr, "missing error: %s...%s\n", want[i][0], want[i][1]); }
    }
    CHECK(strstr(h.err, "(frame 6): ") && (strstr(h.err, "stack overflow") || strstr(strstr(h.err, "(frame 6): "), "not enough memory")));
    CHECK(strstr(h.out, "alive\ttrue\n") != NULL);
    if (ub_t_fail) fprintf(stderr, "--- errors:\n%s--- output:\n%s", h.err, h.out);
    host_free(&h);

    /* a hook is disabled after max_errors */
    host_new(&h, 100000, 0, 3, false);
    rc = ub_lua_load(h.L, script("loop.lua", "calls = 0\nfunction on_packet(p) calls = calls + 1 error('x') end\n"
                                            "function on_end() print('calls', calls) end\n"),
                     NULL, err, sizeof err);
    CHECK_EQ(rc, 0);
    feed(&h, NULL, "audit_txn_clean.pcapng");
    ub_lua_end(h.L);
    host_flush(&h);
    CHECK_EQ(ub_lua_errors(h.L), 3);
    CHECK(strstr(h.out, "calls\t3\n") != NULL);
    CHECK(strstr(h.err, "on_packet of ") && strstr(h.err, "disabled after 3 errors"));
    host_free(&h);

    /* an infinite loop at load time */
    host_new(&h, 100000, 0, 0, false);
    CHECK_EQ(ub_lua_load(h.L, script("loadloop.lua", "while true do end\n"), NULL, err, sizeof err), -1);
    CHECK(strstr(err, "loadloop.lua:1: instruction budget exceeded") != NULL);
    host_free(&h);
}

/* ================================================================ build / decode, u64 */
static const char build_lua[] =
    "local b, e = ub.build{ {'lph', vl=1}, {'nth16', scna=0x102, dcna=0x304},\n"
    "  {'btah_c', taopcode='Write', ee_bits=1, ini_tassn=7},\n"
    "  {'maetah_c', address=0x0000100000000040, tokenid=0x12345, length=0}, {'payload', inc=64} }\n"
    "assert(e == 'flit')\n"
    "local p = ub.decode(b, e, {frame = 9, ts = 123})\n"
    "assert(p.frame == 9 and p.ts == 123 and p.error == nil, p.error)\n"
    "assert(p:get('ub.nth.scna') == 0x102 and p:get('ub.btah.taopcode') == 3 and p:get('ub.btah.ini_tassn') == 7)\n"
    "assert(p:get('ub.maetah.address') == 0x0000100000000040)\n"
    "assert(p:get('ub.bcrc.status') == 1)\n"
    "local q = ub.decode(ub.build{ entry='pkt', {'lph', vl=0}, {'nth16', scna=1, dcna=2},\n"
    "  {'btah_c', taopcode='Read', ini_tassn=1}, {'maetah_c', address=0x40, tokenid=1, length=1} })\n"
    "assert(q.entry == 'pkt' and q:get('ub.btah.taopcode') == 6)\n"
    "assert(not pcall(ub.build, { {'nosuch'} }))\n"
    "assert(not pcall(ub.build, { {'lph', nosuch=1} }))\n"
    "assert(ub.u64.str(-1) == '18446744073709551615' and ub.u64.parse('0xffffffffffffffff') == -1)\n"
    "assert(ub.u64.parse('18446744073709551616') == nil and ub.u64.parse('12x') == nil)\n"
    "assert(ub.u64.lt(1, -1) and not ub.u64.lt(-1, 1) and ub.u64.hex(255, 4) == '0x00ff')\n"
    "assert(ub.u64.div(-1, 2) == 0x7fffffffffffffff and ub.u64.mod(-1, 10) == 5)\n"
    "assert(ub.hex(0x80000000) == '0x80000000' and ub.ts(1500000001) == '1.500000001')\n"
    "local bf = io and 0 or ub.filter('ub.btah.taopcode == \"Write\"')\n"
    "assert(bf(p) and not bf(q) and p:match('ub.maetah') and tostring(bf):match('Write'))\n"
    "io_bytes = b\n";

static void test_build(void)
{
    host h;
    host_new(&h, 0, 0, 0, false);
    char err[512];
    int rc = ub_lua_load(h.L, script("build.lua", build_lua), NULL, err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) fprintf(stderr, "%s\n", err);
    host_free(&h);
}

/* ================================================================ rules, findings, hooks (a real audit session) */
static const char rules_lua[] =
    "local r = ub.rule{ id = 'LAB-T-001', severity = 'warning', summary = 'every Write', doc = 'values: TASSN' }\n"
    "assert(tostring(r) == 'LAB-T-001' and r.severity == 'warning' and r.summary == 'every Write')\n"
    "assert(not pcall(ub.rule, { id = 'LAB-T-001', summary = 'again' }))\n"       /* duplicate id */
    "assert(not pcall(ub.rule, { id = 'bad id', summary = 'x' }))\n"
    "assert(not pcall(ub.rule, { id = 'LAB-T-002' }))\n"                         /* no summary */
    "ub.rerate('UB-TA-001', 'warning')\n"
    "local op, sn = ub.field('ub.btah.taopcode'), ub.field('ub.btah.ini_tassn')\n"
    "matches, findings, late = 0, 0, nil\n"
    "function on_packet(pkt)\n"
    "  if op(pkt) == 3 then ub.report(r, pkt, 'a write', { sn(pkt), key = 'tassn', keytext = 'T' .. sn(pkt) }) end\n"
    "  if pkt.frame == 5 then ub.rule{ id = 'LAB-T-003', summary = 'too late' } end\n"  /* error: after load */
    "end\n"
    "function on_match(req, rsp, lat) matches = matches + 1 end\n"
    "function on_finding(f)\n"
    "  findings = findings + 1\n"
    "  if f.rule == 'LAB-T-001' and f.values[1] == 6 then f.severity = 'error' end\n"  /* re-rate one */
    "  if f.rule == 'LAB-T-001' and f.values[1] == 20 then return false end\n"         /* drop one */
    "  if f.frame == 0 then late = pcall(ub.report, r, 1, 'after the end') end\n"
    "end\n"
    "function on_end() print('matches', matches, 'findings', findings > 0) end\n";

static void test_rules(void)
{
    host h;
    host_new(&h, 0, 0, 0, false);
    ub_ruleset *rs = ub_ruleset_new();
    char err[512];
    int rc = ub_lua_load(h.L, script("rules.lua", rules_lua), rs, err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) fprintf(stderr, "%s\n", err);
    CHECK(ub_ruleset_find(rs, "LAB-T-001") && ub_ruleset_find(rs, "UB-LUA-001"));
    CHECK(ub_lua_wants(h.L) & UB_LUA_W_RULES);
    CHECK(ub_lua_needs_engine(h.L));
    /* a second script cannot reuse the id */
    CHECK_EQ(ub_lua_load(h.L, script("dup.lua", "ub.rule{ id = 'LAB-T-001', summary = 'x' }\n"), rs, err, sizeof err), -1);
    CHECK(strstr(err, "LAB-T-001") != NULL);
    ub_audit_cfg ac;
    ub_audit_cfg_default(&ac);
    ac.rules = rs;
    ac.opts = &h.o;
    ac.jobs = 2; /* hooks: one engine */
    ub_audit *a = ub_audit_new(&ac, err, sizeof err);
    CHECK(a != NULL);
    ub_lua_attach(h.L, a);
    CHECK(feed(&h, a, "audit_txn_clean.pcapng") > 0);
    CHECK_EQ(ub_audit_jobs(a), 1);
    ub_lua_end(h.L);
    ub_audit_finish(a);
    host_flush(&h);
    const ub_collect *c = ub_audit_findings(a);
    const ub_rule *r = ub_ruleset_find(rs, "LAB-T-001");
    const ub_rule *le = ub_ruleset_find(rs, "UB-LUA-001");
    /* audit_txn_clean: Write packets at frames 18 (TASSN 5), 22-24 (TASSN 6, one 3-packet Write), 28-30 (20,
     * 21, 22), 32 (23), 36 (1) = 9; TASSN 20 dropped by on_finding, the 3 of TASSN 6 re-rated to error */
    CHECK_EQ(ub_collect_rule_total(c, r->idx), 8);
    CHECK_EQ(ub_collect_count(c, r->idx, UB_SEV_ERROR), 3);
    CHECK_EQ(ub_collect_count(c, r->idx, UB_SEV_WARN), 5);
    unsigned nex = 0;
    const ub_finding *ex = ub_collect_examples(c, r->idx, &nex);
    CHECK(nex > 0 && ex && ex[0].message && strcmp(ex[0].message, "a write") == 0 && ex[0].src_line == 10 &&
          strcmp(ex[0].keytext, "T5") == 0 && ex[0].key && strcmp(ex[0].key, "tassn") == 0);
    /* ub.rule after load: a script error (UB-LUA-001) at frame 5, line 11 */
    CHECK_EQ(ub_collect_rule_total(c, le->idx), 1);
    ex = ub_collect_examples(c, le->idx, &nex);
    CHECK(nex == 1 && ex[0].frame == 5 && ex[0].src_line == 11 && strstr(ex[0].message, "while the script loads"));
    /* the engine's 29 pairs (lua/latency.lua: 4 management, 13 transaction, 12 transport) */
    CHECK(strstr(h.out, "matches\t29\tfindings\ttrue\n") != NULL);
    if (!strstr(h.out, "matches\t29")) fprintf(stderr, "output: %s\n", h.out);
    ub_audit_free(a);
    host_free(&h);
    ub_ruleset_free(rs);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/ubluaXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    test_values();
    test_objects();
    test_sandbox();
    test_hostile();
    test_build();
    test_rules();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return ub_test_finish();
}
