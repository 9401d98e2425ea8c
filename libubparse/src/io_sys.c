/* Packet I/O for the live tools (include/ubparse/io.h): addresses, interface facts (sysfs), UDP
 * wrapping of recorded payloads and capability dropping — the parts that touch no endpoint. Linux only. */
#define _GNU_SOURCE 1
#include "ubparse/io.h"
#include "io_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ------------------------------------------------------------------ addresses */
static bool is_v4mapped(const struct sockaddr_in6 *s)
{
    return IN6_IS_ADDR_V4MAPPED(&s->sin6_addr);
}

/* AF_INET6 v4-mapped -> AF_INET (what callers see); other addresses unchanged */
void uio_addr_norm(ub_io_addr *a)
{
    if (a->len && a->ss.ss_family == AF_INET6 && is_v4mapped((struct sockaddr_in6 *)&a->ss)) {
        struct sockaddr_in6 s6 = *(struct sockaddr_in6 *)&a->ss;
        struct sockaddr_in s4;
        memset(&s4, 0, sizeof s4);
        s4.sin_family = AF_INET;
        s4.sin_port = s6.sin6_port;
        memcpy(&s4.sin_addr, s6.sin6_addr.s6_addr + 12, 4);
        memset(&a->ss, 0, sizeof a->ss);
        memcpy(&a->ss, &s4, sizeof s4);
        a->len = sizeof s4;
    }
}

/* AF_INET -> v4-mapped AF_INET6 for a dual-stack socket */
void uio_addr_to_family(const ub_io_addr *in, int family, struct sockaddr_storage *out, socklen_t *len)
{
    if (family == AF_INET6 && in->ss.ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)&in->ss;
        struct sockaddr_in6 s6;
        memset(&s6, 0, sizeof s6);
        s6.sin6_family = AF_INET6;
        s6.sin6_port = s4->sin_port;
        s6.sin6_addr.s6_addr[10] = s6.sin6_addr.s6_addr[11] = 0xff;
        memcpy(s6.sin6_addr.s6_addr + 12, &s4->sin_addr, 4);
        memset(out, 0, sizeof *out);
        memcpy(out, &s6, sizeof s6);
        *len = sizeof s6;
    } else {
        memcpy(out, &in->ss, sizeof *out);
        *len = in->len;
    }
}

uint16_t ub_io_addr_port(const ub_io_addr *a)
{
    if (!a->len) return 0;
    if (a->ss.ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
    if (a->ss.ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
    return 0;
}

size_t ub_io_addr_str(const ub_io_addr *a, char *buf, size_t n)
{
    char h[INET6_ADDRSTRLEN] = "?";
    if (!n) return 0;
    if (!a->len) return (size_t)snprintf(buf, n, "-");
    if (a->ss.ss_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)&a->ss)->sin_addr, h, sizeof h);
        return (size_t)snprintf(buf, n, "%s:%u", h, ub_io_addr_port(a));
    }
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)&a->ss)->sin6_addr, h, sizeof h);
    return (size_t)snprintf(buf, n, "[%s]:%u", h, ub_io_addr_port(a));
}

static bool parse_port(const char *s, uint16_t *port)
{
    if (!*s) return false;
    unsigned long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (unsigned long)(*p - '0');
        if (v > 65535) return false;
    }
    *port = (uint16_t)v;
    return true;
}

static bool all_digits(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

int ub_io_parse_addr(const char *text, uint16_t default_port, ub_io_addr *out, char *err, size_t errlen)
{
    char host[256];
    uint16_t port = default_port;
    const char *h = NULL;
    memset(out, 0, sizeof *out);
    if (!text || !*text || strlen(text) >= sizeof host) {
        uio_seterr(err, errlen, "bad address '%s'%s", text ? text : "", 0);
        return -1;
    }
    if (text[0] == '[') { /* [v6] or [v6]:port */
        const char *e = strchr(text, ']');
        if (!e || (e[1] && e[1] != ':')) { uio_seterr(err, errlen, "bad address '%s' (expected [IPV6]:PORT)%s", text, 0); return -1; }
        memcpy(host, text + 1, (size_t)(e - text - 1));
        host[e - text - 1] = '\0';
        h = host;
        if (e[1] == ':' && !parse_port(e + 2, &port)) { uio_seterr(err, errlen, "bad port in '%s'%s", text, 0); return -1; }
    } else if (all_digits(text)) { /* PORT */
        if (!parse_port(text, &port)) { uio_seterr(err, errlen, "bad port '%s'%s", text, 0); return -1; }
    } else if (text[0] == ':' && all_digits(text + 1)) { /* :PORT */
        if (!parse_port(text + 1, &port)) { uio_seterr(err, errlen, "bad port in '%s'%s", text, 0); return -1; }
    } else {
        const char *c = strchr(text, ':');
        if (c && strchr(c + 1, ':')) { /* bare IPv6 */
            snprintf(host, sizeof host, "%s", text);
        } else if (c) {
            memcpy(host, text, (size_t)(c - text));
            host[c - text] = '\0';
            if (!parse_port(c + 1, &port)) { uio_seterr(err, errlen, "bad port in '%s'%s", text, 0); return -1; }
        } else {
            snprintf(host, sizeof host, "%s", text);
        }
        h = host;
    }
    if (!h || !*h) { /* wildcard: dual-stack IPv6 any, the open call falls back to IPv4 */
        struct sockaddr_in6 s6;
        memset(&s6, 0, sizeof s6);
        s6.sin6_family = AF_INET6;
        s6.sin6_addr = in6addr_any;
        s6.sin6_port = htons(port);
        memcpy(&out->ss, &s6, sizeof s6);
        out->len = sizeof s6;
        return 0;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
    char ps[8];
    snprintf(ps, sizeof ps, "%u", port);
    int rc = getaddrinfo(h, ps, &hints, &res);
    if (rc == EAI_ADDRFAMILY || rc == EAI_NONAME) { /* AI_ADDRCONFIG hides ::1/127.0.0.1 without interfaces */
        hints.ai_flags = AI_NUMERICSERV;
        rc = getaddrinfo(h, ps, &hints, &res);
    }
    if (rc != 0 || !res) {
        if (errlen) snprintf(err, errlen, "cannot resolve '%s': %s", h, gai_strerror(rc));
        return -1;
    }
    memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
    out->len = (socklen_t)res->ai_addrlen;
    freeaddrinfo(res);
    uio_addr_norm(out);
    return 0;
}

bool uio_addr_is_any(const ub_io_addr *a)
{
    if (a->ss.ss_family == AF_INET) return ((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr == htonl(INADDR_ANY);
    return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr);
}

/* ------------------------------------------------------------------ interfaces */
static int read_sys(const char *ifname, const char *file, char *buf, size_t n)
{
    char path[256];
    if (strchr(ifname, '/') || !strcmp(ifname, ".") || !strcmp(ifname, "..")) return -1;
    snprintf(path, sizeof path, "/sys/class/net/%s/%s", ifname, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t r = read(fd, buf, n - 1);
    close(fd);
    if (r < 0) return -1;
    buf[r] = '\0';
    while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' ')) buf[--r] = '\0';
    return (int)r;
}

int ub_io_if_arphrd(const char *ifname)
{
    if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ) return -1;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    int r = ioctl(fd, SIOCGIFHWADDR, &ifr) == 0 ? ifr.ifr_hwaddr.sa_family : -1;
    close(fd);
    return r;
}

static bool sys_exists(const char *ifname, const char *file)
{
    char path[256];
    struct stat sb;
    snprintf(path, sizeof path, "/sys/class/net/%s%s%s", ifname, *file ? "/" : "", file);
    return stat(path, &sb) == 0;
}

/* ethtool driver name and bus (netns-aware, unlike a /sys mounted for another namespace) */
static bool driver_info(const char *ifname, char *drv, size_t n, char *bus, size_t bn)
{
    drv[0] = bus[0] = '\0';
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    struct ethtool_drvinfo di;
    struct ifreq ifr;
    memset(&di, 0, sizeof di);
    memset(&ifr, 0, sizeof ifr);
    di.cmd = ETHTOOL_GDRVINFO;
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    ifr.ifr_data = (void *)&di;
    bool ok = ioctl(fd, SIOCETHTOOL, &ifr) == 0;
    close(fd);
    if (ok) {
        snprintf(drv, n, "%.31s", di.driver);
        snprintf(bus, bn, "%.31s", di.bus_info);
    }
    return ok;
}

int ub_io_if_is_physical(const char *ifname, char *kind, size_t kindlen)
{
    if (kindlen) kind[0] = '\0';
    if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ || strchr(ifname, '/')) return -1;
    unsigned idx = if_nametoindex(ifname); /* this network namespace */
    if (!idx) return -1;
    int type = ub_io_if_arphrd(ifname);
    if (type == ARPHRD_LOOPBACK) {
        if (kindlen) snprintf(kind, kindlen, "loopback");
        return 0;
    }
    char drv[32], bus[32];
    driver_info(ifname, drv, sizeof drv, bus, sizeof bus);
    /* Only drivers whose frames cannot leave the host count as virtual: a bridge, bond, VLAN,
     * macvlan/ipvlan or tunnel may carry them to a wire, so those need --allow-physical too. */
    static const char *const virt[] = { "veth", "dummy", "tun", "nlmon", "ifb" };
    for (size_t i = 0; i < sizeof virt / sizeof virt[0]; i++)
        if (!strcmp(drv, virt[i])) {
            if (kindlen) snprintf(kind, kindlen, "%s%s", drv, !strcmp(drv, "tun") && !strcmp(bus, "tap") ? " (tap)" : "");
            return 0;
        }
    if (kindlen) {
        /* describe it; /sys/class/net is trusted only when it shows this namespace's interface */
        char b[32], sub[64] = "";
        if (read_sys(ifname, "ifindex", b, sizeof b) > 0 && (unsigned)atoi(b) == idx && sys_exists(ifname, "device")) {
            char path[256], link[256] = "";
            snprintf(path, sizeof path, "/sys/class/net/%s/device/subsystem", ifname);
            ssize_t r = readlink(path, link, sizeof link - 1);
            if (r > 0) link[r] = '\0';
            const char *sl = strrchr(link, '/');
            snprintf(sub, sizeof sub, "%s", sl ? sl + 1 : "device");
        }
        if (drv[0] || sub[0] || bus[0])
            snprintf(kind, kindlen, "physical or wire-reaching (%s%s%s%s%s)", drv[0] ? "driver " : "", drv,
                     sub[0] ? (drv[0] ? ", " : "") : "", sub, bus[0] && !sub[0] ? bus : "");
        else
            snprintf(kind, kindlen, "physical or unknown (ARPHRD %d)", type);
    }
    return 1;
}

/* ------------------------------------------------------------------ UDP wrapping (recording) */
static uint16_t csum16(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2) s += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1) s += (uint32_t)p[n - 1] << 8;
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

long ub_io_wrap_udp(const ub_io_addr *src0, const ub_io_addr *dst0, const uint8_t *payload, uint32_t len,
                    uint8_t *out, size_t cap)
{
    ub_io_addr src = *src0, dst = *dst0;
    uio_addr_norm(&src);
    uio_addr_norm(&dst);
    if (!src.len || !dst.len || src.ss.ss_family != dst.ss.ss_family) return -1;
    bool v4 = src.ss.ss_family == AF_INET;
    uint32_t ipl = v4 ? 20 : 40, total = ipl + 8 + len;
    if (total > cap || len > 65535 - 8 - (v4 ? 20 : 0)) return -1;
    memset(out, 0, ipl + 8);
    if (v4) {
        out[0] = 0x45;
        out[2] = (uint8_t)(total >> 8);
        out[3] = (uint8_t)total;
        out[6] = 0x40; /* DF (Table 5-4) */
        out[8] = 64;
        out[9] = 17;
        memcpy(out + 12, &((const struct sockaddr_in *)&src.ss)->sin_addr, 4);
        memcpy(out + 16, &((const struct sockaddr_in *)&dst.ss)->sin_addr, 4);
        uint16_t c = csum16(out, 20);
        out[10] = (uint8_t)(c >> 8);
        out[11] = (uint8_t)c;
    } else {
        out[0] = 0x60;
        out[4] = (uint8_t)((len + 8) >> 8);
        out[5] = (uint8_t)(len + 8);
        out[6] = 17;
        out[7] = 64;
        memcpy(out + 8, &((const struct sockaddr_in6 *)&src.ss)->sin6_addr, 16);
        memcpy(out + 24, &((const struct sockaddr_in6 *)&dst.ss)->sin6_addr, 16);
    }
    uint8_t *u = out + ipl;
    uint16_t sp = ub_io_addr_port(&src), dp = ub_io_addr_port(&dst);
    u[0] = (uint8_t)(sp >> 8);
    u[1] = (uint8_t)sp;
    u[2] = (uint8_t)(dp >> 8);
    u[3] = (uint8_t)dp;
    u[4] = (uint8_t)((len + 8) >> 8);
    u[5] = (uint8_t)(len + 8);
    if (len) memcpy(u + 8, payload, len);
    return (long)total;
}

/* ------------------------------------------------------------------ capabilities */
static int capget2(struct __user_cap_data_struct d[2])
{
    struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    return (int)syscall(SYS_capget, &h, d);
}

int ub_io_have_cap(unsigned cap)
{
    struct __user_cap_data_struct d[2];
    if (cap > 63 || capget2(d) < 0) return -1;
    return (d[cap / 32].effective >> (cap % 32)) & 1;
}

int ub_io_cap_permitted(unsigned cap)
{
    struct __user_cap_data_struct d[2];
    if (cap > 63 || capget2(d) < 0) return -1;
    return (d[cap / 32].permitted >> (cap % 32)) & 1;
}

int ub_io_drop_caps(uint64_t mask, char *err, size_t errlen)
{
    if (errlen) err[0] = '\0';
    /* bounding set first (needs CAP_SETPCAP, which the capset below may remove) */
    for (unsigned c = 0; c < 64; c++) {
        if (!((mask >> c) & 1)) continue;
        int in = prctl(PR_CAPBSET_READ, (unsigned long)c, 0UL, 0UL, 0UL);
        if (in < 0) break; /* beyond CAP_LAST_CAP */
        if (in == 1) (void)prctl(PR_CAPBSET_DROP, (unsigned long)c, 0UL, 0UL, 0UL);
        (void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, (unsigned long)c, 0UL, 0UL);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1UL, 0UL, 0UL, 0UL) < 0) {
        uio_seterr(err, errlen, "PR_SET_NO_NEW_PRIVS: %s%s", "", errno);
        return -1;
    }
    struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d) < 0) { uio_seterr(err, errlen, "capget: %s%s", "", errno); return -1; }
    for (int w = 0; w < 2; w++) {
        uint32_t m = (uint32_t)(mask >> (32 * w));
        d[w].effective &= ~m;
        d[w].permitted &= ~m;
        d[w].inheritable &= ~m;
    }
    h.version = _LINUX_CAPABILITY_VERSION_3;
    h.pid = 0;
    if (syscall(SYS_capset, &h, d) < 0) { uio_seterr(err, errlen, "capset: %s%s", "", errno); return -1; }
    /* verify */
    struct __user_cap_data_struct v[2];
    if (capget2(v) < 0) { uio_seterr(err, errlen, "capget: %s%s", "", errno); return -1; }
    for (int w = 0; w < 2; w++) {
        uint32_t m = (uint32_t)(mask >> (32 * w));
        if ((v[w].effective | v[w].permitted) & m) {
            uio_seterr(err, errlen, "capabilities still present after capset%s%s", "", 0);
            return -1;
        }
    }
    return 0;
}
