-- bench: a two-field latency script. Per packet it reads TAOpcode and INI_TASSN (two extractor
-- calls) plus the timestamp; requests remember their send time per TASSN, responses (none in the
-- benchmark capture, which holds only Writes) would turn it into a latency. Same logic as
-- bench/lua/latency2_tap.lua in tshark.
local op = ub.field("ub.btah.taopcode")
local sn = ub.field("ub.btah.ini_tassn")
local sent, n = {}, 0
function on_packet(pkt)
    local o, s = op(pkt), sn(pkt)
    if o then
        sent[s] = pkt.ts
        n = n + 1
    end
end
function on_end() print("requests", n) end
