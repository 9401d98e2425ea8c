-- bench: the cost of calling a Lua hook per packet (nothing else)
function on_packet(pkt) end
