/* ubdump -i / -D: live capture (libubparse's ub_cap_open_live) and the interfaces it can open. */
#define _DEFAULT_SOURCE /* struct ifreq, IFF_UP (net/if.h) */
#include "ubdump_out.h"
#include "ubparse/io.h"

#include <ctype.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h> /* setitimer: -a duration */
#include <unistd.h>

/* the capture runs until -c, -a duration, or SIGINT / SIGTERM (then the run ends as at the end of a
 * file: the totals, the audit report) */
static volatile sig_atomic_t live_stop;
static void on_stop(int sig) { (void)sig; live_stop = 1; }

static const char *lt_name(uint32_t lt)
{
    return lt == 1 ? "Ethernet" : lt == 276 ? "Linux cooked v2" : lt == 101 ? "raw IP" : "UB";
}

/* -f: the capture filter compiled by libpcap for the capture's link type, given to the kernel */
static int live_filter(ub_capfile *c, const char *expr, unsigned snaplen, char *err, size_t errlen)
{
    ub_cap_ifinfo ii;
    ub_cap_ifinfo_get(c, 0, &ii);
    const int dlt = ii.linktype == 1 ? DLT_EN10MB : ii.linktype == 101 ? DLT_RAW : -1;
    if (dlt < 0) {
        snprintf(err, errlen, "-f: capture filters work on Ethernet, loopback and raw IP (tun) interfaces, not on a UB "
                              "link (link type %u): use -Y", ii.linktype);
        return -1;
    }
    pcap_t *p = pcap_open_dead(dlt, (int)(snaplen ? snaplen : 65535));
    struct bpf_program prog;
    int rc = -1;
    if (!p) snprintf(err, errlen, "-f: out of memory");
    else if (pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0)
        snprintf(err, errlen, "-f: '%s': %s", expr, pcap_geterr(p));
    else {
        rc = ub_cap_live_filter(c, prog.bf_insns, prog.bf_len, err, errlen);
        pcap_freecode(&prog);
    }
    if (p) pcap_close(p);
    return rc;
}

ub_capfile *ubx_open_live(const char *ifname, unsigned snaplen, bool promisc, double duration, const char *filter,
                          char *err, size_t errlen)
{
    char byidx[IF_NAMESIZE];
    bool digits = *ifname != '\0';
    for (const char *p = ifname; *p; p++) digits &= isdigit((unsigned char)*p) != 0;
    if (digits && !if_nametoindex(ifname)) { /* tcpdump -i 2: the interface -D lists as 2 */
        unsigned long ix = strtoul(ifname, NULL, 10);
        if (ix == 0 || ix > 0xFFFFFFFFul || !if_indextoname((unsigned)ix, byidx)) {
            snprintf(err, errlen, "%s: no interface with that index (ubdump -D lists them)", ifname);
            return NULL;
        }
        ifname = byidx;
    }
    ub_capfile *c = ub_cap_open_live(ifname, snaplen, promisc, &live_stop, err, errlen);
    if (!c) return NULL;
    if (filter && live_filter(c, filter, snaplen, err, errlen) != 0) {
        ub_cap_close(c);
        return NULL;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: a waiting receive returns, the flag is seen */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (duration > 0) { /* -a duration: SIGALRM ends it as SIGINT does */
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = { .it_value = { (time_t)duration, (suseconds_t)((duration - (double)(time_t)duration) * 1e6) } };
        if (!it.it_value.tv_sec && !it.it_value.tv_usec) it.it_value.tv_usec = 1;
        setitimer(ITIMER_REAL, &it, NULL);
    }
    /* the socket is open: the capabilities that opened it are not needed any more (tcpdump -Z) */
    char e[200];
    if (ub_io_drop_caps(UB_IO_CAPS_ALL, e, sizeof e) < 0) {
        snprintf(err, errlen, "dropping capabilities: %s", e);
        ub_cap_close(c);
        return NULL;
    }
    ub_cap_ifinfo ii;
    ub_cap_ifinfo_get(c, 0, &ii);
    fprintf(stderr, "ubdump: capturing on %s, link type %u (%s), snapshot length %u bytes%s%s%s\n", ifname, ii.linktype,
            lt_name(ii.linktype), ii.snaplen, filter ? ", capture filter '" : "", filter ? filter : "", filter ? "'" : "");
    return c;
}

int ubx_list_interfaces(FILE *f)
{
    struct if_nameindex *ifs = if_nameindex();
    if (!ifs) {
        perror("ubdump: -D");
        return -1;
    }
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    for (struct if_nameindex *i = ifs; i->if_index; i++) {
        int arphrd = ub_io_if_arphrd(i->if_name);
        ub_io_framing fr = ub_io_framing_for_arphrd(arphrd);
        const char *lt = fr == UB_IO_FRAME_ETH ? "Ethernet" : fr == UB_IO_FRAME_CFGPH ? "UB (Linux cooked v2)"
                         : arphrd == 0xFFFE                                          ? "raw IP"
                                                                                     : NULL;
        char kind[96] = "";
        ub_io_if_is_physical(i->if_name, kind, sizeof kind);
        struct ifreq r;
        memset(&r, 0, sizeof r);
        snprintf(r.ifr_name, sizeof r.ifr_name, "%s", i->if_name);
        bool up = s >= 0 && ioctl(s, SIOCGIFFLAGS, &r) == 0 && (r.ifr_flags & IFF_UP);
        fprintf(f, "%u. %s (%s, %s, %s)\n", i->if_index, i->if_name, kind[0] ? kind : "?", up ? "up" : "down",
                lt ? lt : "not readable live: link type unsupported");
    }
    if (s >= 0) close(s);
    if_freenameindex(ifs);
    return 0;
}
