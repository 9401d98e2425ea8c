/* Decoder options by name (ubdump -o, ubreplay -o, Lua): "name=value" or tshark's "name:value".
 * One table gives each option its field, its accepted values and its help line. Numbers are decimal
 * or 0x-hexadecimal, checked against the option's range: a value that does not fit is an error,
 * never silently truncated (issue #9 item 6: dlt.flit=4294967443 used to act as 147). */
#include "ubparse/audit.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum { K_U16, K_U8, K_BOOL, K_CRC, K_TAH, K_PORTS, K_PROFILE, K_WORDS };

typedef struct {
    const char *name;
    uint8_t kind;
    size_t off;
    uint32_t max; /* numbers: 0..max */
    const char *help; /* the help line printed before this option (NULL: shares the previous one) */
    uint8_t flags;    /* OF_* */
} optdef;
enum { OF_NB = 1, OF_HEX = 2 }; /* a neighbouring interconnect's option; shown in hexadecimal */

#define OFF(f) offsetof(ub_opts, f)
static const optdef opt_table[] = {
    { "dlt.flit", K_U16, OFF(dlt_flit), 65535, "dlt.flit=N dlt.pkt=N dlt.stream=N   link types of the three UB entry points (147/148/149)", 0 },
    { "dlt.pkt", K_U16, OFF(dlt_pkt), 65535, NULL, 0 },
    { "dlt.stream", K_U16, OFF(dlt_stream), 65535, NULL, 0 },
    { "udp.port", K_PORTS, OFF(udp_port), 65535, "udp.port=N[,N...]                  UB over UDP destination ports (4792; up to 8, 0 = none)", 0 },
    { "udp.heuristic", K_BOOL, OFF(udp_heuristic), 1, "udp.heuristic=0|1                  UDP on other ports is UB when the strict heuristic holds (1)", 0 },
    { "profile", K_PROFILE, OFF(profile), UB_PROFILE__COUNT - 1, "profile=spec|ns3ub                 decoding profile: the spec, or ns-3-UB simulator traces (docs/interop.md)", 0 },
    { "crc_mode", K_CRC, OFF(crc_mode), 1, "crc_mode=crc|noncrc                BCRC per block (CRC) or END (Non-CRC)", 0 },
    { "bcrc_variant", K_U8, OFF(bcrc_variant), 1, "bcrc_variant=0|1                   R-03: CRC30 covers the 2 info bits (0) or bytes only (1)", 0 },
    { "tah_fmt.6", K_TAH, OFF(tah_fmt) + 6, 1, "tah_fmt.<cfg>=full|compact          R-25: TAH format per CFG (defaults: 6,9 compact; others full)", 0 },
    { "tah_fmt.9", K_TAH, OFF(tah_fmt) + 9, 1, NULL, 0 },
    { "tah_fmt.7", K_TAH, OFF(tah_fmt) + 7, 1, NULL, 0 },
    { "tah_fmt.3", K_TAH, OFF(tah_fmt) + 3, 1, NULL, 0 },
    { "tah_fmt.4", K_TAH, OFF(tah_fmt) + 4, 1, NULL, 0 },
    { "read_ext4", K_U8, OFF(read_ext4), 2, "read_ext4=0|1|2                    R-26: 4 spare bytes in a Read: auto, TAIDETAH, OFSTETAH", 0 },
    { "rsp_ext", K_U8, OFF(rsp_ext), 3, "rsp_ext=0..3                       R-26: responses carry TAIDETAH (1) / OFSTETAH (2)", 0 },
    { "btah_variant", K_U8, OFF(btah_variant), 1, "btah_variant=0|1                   I-34: BTAH byte 4 per spec (0) or EV-UBUS (1)", 0 },
    { "scan_packing", K_U8, OFF(scan_packing), 1, "scan_packing=0|1                   R-32: path entries rev.2 (0) or rev.1 (1)", 0 },
    { "vdm_variant", K_U8, OFF(vdm_variant), 1, "vdm_variant=0|1                    R-36: VDM header figure order (0) or EV-UBUS (1)", 0 },
    { "init_variant", K_U8, OFF(init_variant), 2, "init_variant=0|1|2                 R-08: Init Block layout A, B or auto", 0 },
    { "cetph_variant", K_U8, OFF(cetph_variant), 1, "cetph_variant=0|1                  R-17: CETPH of TPACK-CC family LDCP (0) or CAQM (1)", 0 },
    { "bitmap_order", K_U8, OFF(bitmap_order), 1, "bitmap_order=0|1                   R-18: SAETPH bitmap order", 0 },
    { "icv_len", K_U16, OFF(icv_len), 65535, "icv_len=N                          R-22: ICV bytes (12)", 0 },
    { "cip_decode_inner", K_BOOL, OFF(cip_decode_inner), 1, "cip_decode_inner=0|1               decode the TAH after a CIPH (default 0: opaque)", 0 },
    { "urpc", K_BOOL, OFF(urpc_heuristic), 1, "urpc=0|1                           decode URPC in Send payloads", 0 },
    { "icrc_enum", K_U8, OFF(icrc_enum), 2, "icrc_enum=0|1|2                    R-44: enumeration ICRC auto/always/never", 0 },
    { "ip.defragment", K_BOOL, OFF(ip_defrag), 1, "ip.defragment=0|1                  reassemble IPv4 and IPv6 fragments, as Wireshark (1)", 0 },
    /* neighbouring interconnects, not UB (docs/neighbours.md) */
    { "dlt.pcieflit", K_U16, OFF(dlt_pcieflit), 65535, "dlt.pcieflit=N                     link type of PCIe 6 flit dumps (150 = USER3; 0 none)", OF_NB },
    { "udp4791", K_WORDS, OFF(udp4791), 2, "udp4791=auto|roce|sue              UDP 4791 payloads: the rule (auto), RoCEv2 or SUE", OF_NB },
    { "sue.port", K_U16, OFF(sue_port), 65535, "sue.port=N                         SUE TYPE1 UDP destination port (4791; 0 none)", OF_NB },
    { "sue.ethertype1", K_U16, OFF(sue_ethertype[0]), 65535, "sue.ethertype1=N sue.ethertype2=N  AFH EtherTypes, TYPE1/TYPE2 (0x88B5/0x88B6, provisional)", OF_NB | OF_HEX },
    { "sue.ethertype2", K_U16, OFF(sue_ethertype[1]), 65535, NULL, OF_NB | OF_HEX },
    { "sue.rh_order", K_WORDS, OFF(sue_rh_order), 1, "sue.rh_order=be|le                 RH byte order: Opcode byte first (be), Dest_QP byte first (le)", OF_NB },
    { "sue.afh", K_WORDS, OFF(sue_afh), 2, "sue.afh=auto|gen1|gen2             AFH MAC header format (auto: Key_words)", OF_NB },
    { "sue.tc_in_sa", K_BOOL, OFF(sue_tc_in_sa), 1, "sue.tc_in_sa=0|1                   AFH_GEN1: SA[47:40] is the Traffic Class (1)", OF_NB },
    { "ib.engine", K_BOOL, OFF(ib_engine), 1, "ib.engine=0|1                      audit IB RC as document 002's RDMA engine: SE=1, AckReq=1 on every request (0)", OF_NB },
    { "sue.cnp_merge_us", K_U16, OFF(sue_cnp_merge_us), 65535, "sue.cnp_merge_us=N                 SUE CNP MERGE TIMER_THR in µs: closer CNPs per QP are SUE-TP-008 (0 off)", OF_NB },
    { "pcieflit.encoding", K_WORDS, OFF(pcieflit_encoding), 2, "pcieflit.encoding=1b1b|8b10b|128b130b  PCIe flit link encoding: handshake limit 512 or 256 flits (1b1b)", OF_NB },
    { "sue.icrc", K_BOOL, OFF(sue_icrc), 1, "sue.icrc=0|1                       a 4-byte ICRC follows the SUE payload (0)", OF_NB },
    { "sue.rnr_encoding", K_WORDS, OFF(sue_rnr_encoding), 1, "sue.rnr_encoding=ib|off            RNR time of an SUE RNR NAK: IB AETH timer code (provisional) or not judged", OF_NB },
};
/* word values of K_WORDS options, index = stored value */
static const char *const *opt_words(const char *name)
{
    static const char *const w4791[] = { "auto", "roce", "sue", NULL };
    static const char *const word_rh[] = { "be", "le", NULL };
    static const char *const word_afh[] = { "auto", "gen1", "gen2", NULL };
    static const char *const word_enc[] = { "1b1b", "8b10b", "128b130b", NULL };
    static const char *const word_rnr[] = { "ib", "off", NULL };
    if (strcmp(name, "udp4791") == 0) return w4791;
    if (strcmp(name, "sue.rh_order") == 0) return word_rh;
    if (strcmp(name, "sue.rnr_encoding") == 0) return word_rnr;
    if (strcmp(name, "pcieflit.encoding") == 0) return word_enc;
    return word_afh;
}
#undef OFF

/* strict unsigned number: decimal or 0x-hex, no sign, no spaces, no trailing characters */
static int parse_num(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!*s) return -1;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
        else return -1;
        if (d > max || v > (max - d) / base) return -2; /* v * base + d > max */
        v = v * base + d;
    }
    *out = v;
    return 0;
}

int ub_opts_set(ub_opts *o, const char *kv, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = 0;
    if (!o || !kv) {
        snprintf(err, errlen, "no option given");
        return -1;
    }
    size_t kl = strcspn(kv, "=:");
    if (!kv[kl]) {
        snprintf(err, errlen, "'%.80s': expected NAME=VALUE or NAME:VALUE", kv);
        return -1;
    }
    const char *val = kv + kl + 1;
    const optdef *d = NULL;
    for (size_t i = 0; i < sizeof opt_table / sizeof opt_table[0]; i++)
        if (strlen(opt_table[i].name) == kl && strncmp(kv, opt_table[i].name, kl) == 0) d = &opt_table[i];
    if (!d) {
        snprintf(err, errlen, "unknown option '%.*s'", (int)(kl > 80 ? 80 : kl), kv);
        return -1;
    }
    uint8_t *field = (uint8_t *)o + d->off;
    uint64_t u = 0;
    int rc;
    switch (d->kind) {
    case K_CRC:
        if (strcmp(val, "crc") == 0 || strcmp(val, "1") == 0) *(bool *)field = true;
        else if (strcmp(val, "noncrc") == 0 || strcmp(val, "0") == 0) *(bool *)field = false;
        else goto bad_word;
        return 0;
    case K_TAH:
        if (strcmp(val, "full") == 0 || strcmp(val, "0") == 0) *field = UB_TAH_FULL;
        else if (strcmp(val, "compact") == 0 || strcmp(val, "1") == 0) *field = UB_TAH_COMPACT;
        else goto bad_word;
        return 0;
    case K_WORDS: { /* a word of the option's list, or its index */
        const char *const *w = opt_words(d->name);
        for (unsigned i = 0; w[i]; i++)
            if (strcmp(val, w[i]) == 0) { *field = (uint8_t)i; return 0; }
        if (parse_num(val, d->max, &u) == 0) { *field = (uint8_t)u; return 0; }
        snprintf(err, errlen, "%s: '%.40s' is not one of the listed values", d->name, val);
        return -1;
    }
    case K_PROFILE: {
        int p = ub_profile_find(val);
        if (p < 0) {
            snprintf(err, errlen, "%s: '%.40s' is not one of spec, ns3ub", d->name, val);
            return -1;
        }
        *field = (uint8_t)p;
        return 0;
    }
    case K_PORTS: { /* "4792" or "4792,5000,...": the first is udp_port, the others udp_more[] */
        uint16_t ports[1 + UB_UDP_MORE];
        unsigned n = 0;
        for (const char *p = val;; n++) {
            size_t l = strcspn(p, ",");
            char one[16];
            if (n >= 1 + UB_UDP_MORE) {
                snprintf(err, errlen, "%s: at most %d ports", d->name, 1 + UB_UDP_MORE);
                return -1;
            }
            if (l == 0 || l >= sizeof one) {
                snprintf(err, errlen, "%s: '%.40s' is not a list of ports", d->name, val);
                return -1;
            }
            memcpy(one, p, l);
            one[l] = 0;
            rc = parse_num(one, 65535, &u);
            if (rc != 0) {
                snprintf(err, errlen, rc == -2 ? "%s: %.16s is out of range (0..65535)" : "%s: '%.16s' is not a port number",
                         d->name, one);
                return -1;
            }
            ports[n] = (uint16_t)u;
            if (!p[l]) { n++; break; }
            p += l + 1;
        }
        o->udp_port = ports[0];
        o->n_udp_more = (uint8_t)(n - 1);
        for (unsigned i = 1; i < n; i++) o->udp_more[i - 1] = ports[i];
        return 0;
    }
    case K_BOOL: /* also tshark's TRUE / FALSE */
        if (strcasecmp(val, "true") == 0 || strcasecmp(val, "false") == 0) {
            *(bool *)field = strcasecmp(val, "true") == 0;
            return 0;
        }
        break;
    default: break;
    }
    rc = parse_num(val, d->max, &u);
    if (rc == -1) {
        snprintf(err, errlen, d->kind == K_BOOL ? "%s: '%.40s' is not 0, 1, TRUE or FALSE" : "%s: '%.40s' is not a number (decimal or 0x-hex)",
                 d->name, val);
        return -1;
    }
    if (rc == -2) {
        snprintf(err, errlen, "%s: %.40s is out of range (0..%u)", d->name, val, (unsigned)d->max);
        return -1;
    }
    switch (d->kind) {
    case K_U16: *(uint16_t *)(void *)field = (uint16_t)u; break;
    case K_U8: *field = (uint8_t)u; break;
    case K_BOOL: *(bool *)field = u != 0; break;
    default: break;
    }
    return 0;
bad_word:
    snprintf(err, errlen, "%s: '%.40s' is not one of %s", d->name, val,
             d->kind == K_CRC ? "crc, noncrc (1, 0)" : "full, compact (0, 1)");
    return -1;
}

bool ub_opt_desc_get(unsigned i, ub_opt_desc *d)
{
    if (i >= sizeof opt_table / sizeof opt_table[0] || !d) return false;
    const optdef *o = &opt_table[i];
    unsigned h = i;
    while (h > 0 && !opt_table[h].help) h--; /* a group's options share the first one's help line */
    const char *m = opt_table[h].help ? strstr(opt_table[h].help, "  ") : NULL;
    while (m && *m == ' ') m++;
    *d = (ub_opt_desc){ o->name,
                        o->kind == K_U16 || o->kind == K_U8 ? UB_OPTK_NUM
                        : o->kind == K_BOOL                 ? UB_OPTK_BOOL
                        : o->kind == K_WORDS                ? UB_OPTK_WORDS
                                                            : UB_OPTK_OTHER,
                        o->max, o->kind == K_WORDS ? opt_words(o->name) : NULL, m ? m : "", (o->flags & OF_HEX) != 0,
                        (o->flags & OF_NB) != 0 };
    return true;
}

uint32_t ub_opt_value(const ub_opts *o, unsigned i)
{
    if (!o || i >= sizeof opt_table / sizeof opt_table[0]) return 0;
    const optdef *d = &opt_table[i];
    const uint8_t *field = (const uint8_t *)o + d->off;
    switch (d->kind) {
    case K_U16: return *(const uint16_t *)(const void *)field;
    case K_U8: case K_WORDS: return *field;
    case K_BOOL: return *(const bool *)(const void *)field ? 1u : 0u;
    default: return 0;
    }
}

void ub_opts_help(FILE *f)
{
    for (size_t i = 0; i < sizeof opt_table / sizeof opt_table[0]; i++)
        if (opt_table[i].help) fprintf(f, "%s\n", opt_table[i].help);
}
