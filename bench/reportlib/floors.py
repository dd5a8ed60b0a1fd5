"""The physical limits of a link (bench/links) for the loads of bench/guest.sh:
the bytes netem's rate counts for an HTTPS response, the ceiling of
requests/s on one page, the minimum time of a download over a new
connection.

What netem counts. The rate limit is netem's own `rate` on the router's
interface toward the client (r-c, a veth, MTU 1500, TSO, GSO and GRO off, so
every packet is at most one MTU). netem serialises each packet for its
length at the qdisc, which on an Ethernet device is the frame without
preamble, FCS or gap: IP packet + 14 bytes of Ethernet header (netem's
packet overhead is left at 0). TCP timestamps are on under every profile
(Debian's default, kept by the installer's script and the package), so a
segment carries 20 bytes of IP, 20 of TCP and 12 of timestamp option: a
full segment is 1448 bytes of payload (MSS, as ss shows for the server's
sockets) in a 1514-byte frame.

What an HTTPS response costs on top of its body. HTTP/1.1 (nginx, no HTTP/2
configured): the status line and headers of nginx for a static file
(Server, Date, Content-Type, Content-Length, Last-Modified, Connection,
ETag, Accept-Ranges), about 240 bytes, taken as 250. TLS 1.3: nginx writes
records of at most 16 KiB of plaintext (ssl_buffer_size), the headers in the
first with the body; each record adds 5 bytes of header, 1 of inner content
type and 16 of AEAD tag (AES-GCM or ChaCha20-Poly1305): 22 bytes. The
handshake, the session tickets sent once per connection (under 1 KB) and
the ACKs (the other way, not rate-limited) are left out.
"""

import math

ETH_HEADER = 14        # what netem counts beyond the IP packet
IP_TCP_HEADERS = 52    # IPv4 20, TCP 20, timestamp option 12 (10, padded)
HTTP_HEADER_BYTES = 250  # nginx's status line and headers, about 240
TLS_RECORD = 16384     # plaintext per TLS record (nginx's ssl_buffer_size)
TLS_RECORD_OVERHEAD = 22  # header 5, inner content type 1, AEAD tag 16
HANDSHAKE_RTTS = 3     # TCP, TLS 1.3 (one round trip, full handshake), request
INITIAL_WINDOW = 10    # Linux's initcwnd (RFC 6928)


def mss(mtu=1500):
    """TCP payload per segment: the MTU less IP, TCP and timestamps (1448)."""
    return mtu - IP_TCP_HEADERS


def response_bytes(body, header=HTTP_HEADER_BYTES):
    """TCP payload of an HTTPS response with BODY bytes: the body and HTTP
    headers, in TLS 1.3 records of at most 16 KiB, 22 bytes each more."""
    plain = body + header
    return plain + TLS_RECORD_OVERHEAD * max(1, math.ceil(plain / TLS_RECORD))


def segments(payload, mtu=1500):
    """The TCP segments that carry PAYLOAD bytes: full ones, the last short."""
    return max(1, math.ceil(payload / mss(mtu)))


def wire_bytes(payload, mtu=1500):
    """What netem's rate counts for PAYLOAD bytes of TCP payload: each
    segment's payload plus 52 bytes of IP and TCP headers (with timestamps)
    and 14 of Ethernet header; a full segment, 1448 bytes, is a 1514-byte
    frame."""
    return payload + segments(payload, mtu) * (IP_TCP_HEADERS + ETH_HEADER)


def page_ceiling(rate_mbit, body, mtu=1500):
    """Requests/s of BODY-byte responses the rate can carry at most: the
    rate over the response's wire bytes. Each response ends in a segment of
    its own (a keep-alive client sends the next request after the last
    byte), and the requests, going the other way, cost no rate."""
    return rate_mbit * 1e6 / 8 / wire_bytes(response_bytes(body), mtu)


def download_floor(body, rtt_ms, rate_mbit, iw=INITIAL_WINDOW, mtu=1500):
    """Seconds from the client's SYN to the last byte of a BODY-byte HTTPS
    response over a new connection, at best: three round trips (TCP
    handshake, the TLS 1.3 handshake, the request, whose round trip ends
    with the first byte), the wire time of the response at the rate, and
    the time the sender waits in slow start. No loss, no receive-window
    limit, no CPU time: a lower bound.

    Slow start: the window starts at IW segments (the server's flight of
    the handshake does not grow it: Linux grows the window only while it
    limits the sender) and doubles per round trip. A window of W full
    segments takes W x s to send (s = one frame at the rate); the ACK of its
    first segment is back RTT + s after that segment left, so the sender
    waits RTT + s - W x s, if that is positive, before the next window:
    until the window covers the bandwidth-delay product. From then on the
    link is busy, and the rest goes at its payload rate."""
    rtt = rtt_ms / 1000
    rate = rate_mbit * 1e6
    payload = response_bytes(body)
    n = segments(payload, mtu)
    s = (mss(mtu) + IP_TCP_HEADERS + ETH_HEADER) * 8 / rate
    t = HANDSHAKE_RTTS * rtt + wire_bytes(payload, mtu) * 8 / rate
    sent, w = 0, iw
    while sent + w < n:  # a window that is not the last one
        t += max(0.0, rtt + s - w * s)
        sent, w = sent + w, 2 * w
    return t


def no_loss_share(n, loss_pct, ge=None):
    """The probability that none of N packets in a row is lost: (1 - p)^N
    for independent loss of LOSS_PCT percent; for netem's Gilbert-Elliott
    model GE = (P, R, H, K) (percentages: good to bad, bad to good, the
    loss in the bad state, in the good one), from the chain's stationary
    state, each packet lost or not in the state it meets, then a step."""
    if not ge:
        return (1 - loss_pct / 100) ** n
    p, r, h, k = (x / 100 for x in ge)
    good, bad = (r / (p + r), p / (p + r)) if p + r else (1.0, 0.0)
    for _ in range(n):
        good, bad = good * (1 - k), bad * (1 - h)
        good, bad = good * (1 - p) + bad * r, good * p + bad * (1 - r)
    return good + bad


def loss_floor(body, rtt_ms, rate_mbit, iw=INITIAL_WINDOW, mtu=1500, loss_pct=0.0, ge=None):
    """download_floor with the link's loss: a lost segment is sent again
    once its loss is seen, at the soonest a round trip after it left, and
    the last byte cannot come before it, so a transfer with a loss takes at
    least one round trip more. The median of the time then is at least
    the lossless floor plus one round trip when fewer than half of the
    transfers lose none of their segments (no_loss_share), the floor
    else. A lower bound: several losses may cost more, a loss of the
    handshake a timeout (1 s), and a congestion control that backs off
    more still; none of that is counted."""
    t = download_floor(body, rtt_ms, rate_mbit, iw, mtu)
    if no_loss_share(segments(response_bytes(body), mtu), loss_pct, ge) < 0.5:
        t += rtt_ms / 1000
    return t


def fair_share_floor(body, rtt_ms, rate_mbit, flows, iw=INITIAL_WINDOW, mtu=1500):
    """download_floor at a fair share of the rate: 1/(FLOWS + 1) of it,
    beside FLOWS competing flows that keep the bottleneck busy. Not a bound
    (a sender can take more than its share, and a new connection's slow
    start less): below it, the connection took more than its share."""
    return download_floor(body, rtt_ms, rate_mbit / (flows + 1), iw, mtu)
