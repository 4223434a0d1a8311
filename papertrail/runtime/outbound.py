"""Which URLs and addresses PaperTrail may reach on a user's behalf (a webhook; any fetch of a URL a user gave): no
loopback, private, link-local, shared (CGNAT), multicast, reserved or unspecified address, in whatever form it is
written (IPv4-mapped, -compatible, NAT64 or 6to4 IPv6; decimal, hex, octal or short IPv4), no credentials in the URL,
only http and https. Pure: the caller resolves names and checks every address it got (papertrail/runtime/guarded_http.py
connects only to a checked one, so DNS rebinding does not pass). An operator allows named on-premises receivers."""

import re
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from urllib.parse import urlsplit

IPAddress = IPv4Address | IPv6Address
IPNetwork = IPv4Network | IPv6Network

# Each refused IPv4 block with the rule it breaks (RFC 6890's special-purpose registry, the blocks no receiver on
# the internet has); the first that holds names the rule.
REFUSED_V4: tuple[tuple[IPv4Network, str], ...] = tuple(
    (IPv4Network(block), rule)
    for block, rule in [
        ("0.0.0.0/32", "the unspecified address"),
        ("0.0.0.0/8", "a 'this network' address"),
        ("127.0.0.0/8", "a loopback address"),
        ("10.0.0.0/8", "a private address"),
        ("172.16.0.0/12", "a private address"),
        ("192.168.0.0/16", "a private address"),
        ("100.64.0.0/10", "a shared (CGNAT) address"),
        ("169.254.0.0/16", "a link-local address"),
        ("192.0.0.0/24", "a reserved address (IETF protocol assignments)"),
        ("192.0.2.0/24", "a reserved address (documentation)"),
        ("198.51.100.0/24", "a reserved address (documentation)"),
        ("203.0.113.0/24", "a reserved address (documentation)"),
        ("192.88.99.0/24", "a reserved address (6to4 relay)"),
        ("198.18.0.0/15", "a reserved address (benchmarking)"),
        ("224.0.0.0/4", "a multicast address"),
        ("255.255.255.255/32", "a broadcast address"),
        ("240.0.0.0/4", "a reserved address"),
    ]
)
REFUSED_V6: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(block), rule)
    for block, rule in [
        ("::/128", "the unspecified address"),
        ("::1/128", "a loopback address"),
        ("64:ff9b:1::/48", "a private address (local NAT64)"),
        ("100::/64", "a reserved address (discard only)"),
        ("2001::/32", "a reserved address (Teredo)"),
        ("2001:db8::/32", "a reserved address (documentation)"),
        ("2001::/23", "a reserved address (IETF protocol assignments)"),
        ("fc00::/7", "a private address (unique local)"),
        ("fe80::/10", "a link-local address"),
        ("fec0::/10", "a private address (site-local)"),
        ("ff00::/8", "a multicast address"),
    ]
)
GLOBAL_UNICAST_V6 = IPv6Network("2000::/3")  # every other IPv6 address is unassigned or special
NAT64 = IPv6Network("64:ff9b::/96")  # RFC 6052: the IPv4 address is the last 32 bits
IPV4_COMPATIBLE = IPv6Network("::/96")  # deprecated ::a.b.c.d
LOCAL_NAMES = ("localhost", "localhost.localdomain")  # RFC 6761: resolvers answer these (and *.localhost) locally
SCHEMES = frozenset({"http", "https"})
# what the resolver reads as an IPv4 address (inet_aton: 2130706433, 0x7f.1, 0177.0.0.1, 127.1)
_IPV4_FORM = re.compile(r"[0-9a-fA-FxX.]+")


class OutboundRefused(ValueError):
    """PaperTrail does not reach this URL or address on a user's behalf; the message names the rule."""


def read_address(host: str) -> IPAddress | None:
    """The host as the resolver reads it when it is an address literal (in any IPv4 form inet_aton takes), else
    None: a name."""
    host = host.strip("[]").rstrip(".")
    try:
        return ip_address(host.split("%", 1)[0])  # an IPv6 zone (fe80::1%eth0) is no part of the address
    except ValueError:
        pass
    if _IPV4_FORM.fullmatch(host):
        try:
            return IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def embedded_ipv4(address: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv6 one carries and reaches: IPv4-mapped, -compatible, NAT64 (64:ff9b::/96), 6to4."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64 or (address in IPV4_COMPATIBLE and int(address) > 1):
        return IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def address_rule(address: IPAddress) -> str | None:
    """The rule an address breaks ("a loopback address"), or None for a public one."""
    if isinstance(address, IPv6Address):
        if (inner := embedded_ipv4(address)) is not None:
            rule = address_rule(inner)
            return f"{rule} ({inner} inside an IPv6 address)" if rule else None
        for block, rule in REFUSED_V6:
            if address in block:
                return rule
        return None if address in GLOBAL_UNICAST_V6 else "a reserved address"
    for block4, rule in REFUSED_V4:
        if address in block4:
            return rule
    return None


def _entry(text: str) -> str | IPNetwork:
    entry = text.strip().lower().rstrip(".")
    if not entry:
        raise ValueError("an empty entry")
    if "/" in entry:
        try:
            return ip_network(entry, strict=False)
        except ValueError as error:
            raise ValueError(f"{text.strip()!r} is no network ({error})") from None
    if (address := read_address(entry)) is not None:
        return ip_network(address)
    if not re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*", entry):
        raise ValueError(f"{text.strip()!r} is no host name, address or network")
    return entry


@dataclass(frozen=True, slots=True)
class Destination:
    """Where a URL leads: its scheme, its host (lower case, no brackets, no final dot), port, and the address
    when the host is one."""

    scheme: str
    host: str
    port: int
    address: IPAddress | None


@dataclass(frozen=True, slots=True)
class OutboundPolicy:
    """The rules, and what an operator allowed beyond them: host names (whatever they resolve to) and addresses or
    networks (however they are reached)."""

    allowed_names: frozenset[str] = frozenset()
    allowed_networks: tuple[IPNetwork, ...] = field(default=())

    @classmethod
    def allowing(cls, entries: Iterable[str]) -> "OutboundPolicy":
        """A policy allowing these host names, addresses and networks (CIDR); ValueError names a bad entry."""
        parsed = [_entry(entry) for entry in entries]
        return cls(
            frozenset(e for e in parsed if isinstance(e, str)), tuple(e for e in parsed if not isinstance(e, str))
        )

    @classmethod
    def from_setting(cls, value: str) -> "OutboundPolicy":
        """From a comma-separated setting (empty: nothing allowed beyond the rules)."""
        return cls.allowing(entry for entry in value.split(",") if entry.strip())

    def name_allowed(self, host: str) -> bool:
        return host.lower().rstrip(".") in self.allowed_names

    def check_url(self, url: str) -> Destination:
        """Where the URL leads, if the rules let it be reached without resolving its host; OutboundRefused names
        the rule it breaks. A name is checked again, resolved, when connecting (`check_resolved`)."""
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError as error:
            raise OutboundRefused(f"{url!r} is no URL ({error})") from None
        return self.check_parts(
            parts.scheme, "@" in parts.netloc, parts.hostname or "", port or _default_port(parts.scheme)
        )

    def check_parts(self, scheme: str, has_userinfo: bool, host: str, port: int) -> Destination:
        """`check_url` for a URL already split (by the HTTP client that will send it)."""
        scheme = scheme.lower()
        if scheme not in SCHEMES:
            raise OutboundRefused(f"{scheme or 'no'} scheme: only http and https URLs are reached")
        if has_userinfo:
            raise OutboundRefused("a user name or password in the URL is refused (send credentials in no URL)")
        host = host.strip("[]").lower().rstrip(".")
        if not host:
            raise OutboundRefused("the URL has no host")
        address = read_address(host)
        if not self.name_allowed(host):
            if address is not None:
                self.check_address(host, address)
            elif host in LOCAL_NAMES or host.endswith(".localhost"):
                raise OutboundRefused(f"{host} is a loopback address")
        return Destination(scheme, host, port, address)

    def check_address(self, host: str, address: IPAddress) -> None:
        """OutboundRefused when `address` (which `host` resolves to, or is) breaks a rule the operator did not lift."""
        if self.name_allowed(host) or any(address in network for network in self.allowed_networks):
            return
        if (rule := address_rule(address)) is not None:
            shown = host if _is_literal(host) or host == str(address) else f"{host} ({address})"
            raise OutboundRefused(f"{shown} is {rule}")

    def check_resolved(self, host: str, addresses: Sequence[IPAddress]) -> IPAddress:
        """The address to connect to, once every address the host resolved to passes: one refused address refuses
        the host (a name answering a public and a private address is the rebinding trick)."""
        if not addresses:
            raise OutboundRefused(f"{host} resolves to no address")
        for address in addresses:
            self.check_address(host, address)
        return addresses[0]


def url_host(url: str) -> str:
    """The host a URL names, as the rules read it (lower case, no brackets, no final dot; "" when it has none)."""
    try:
        return (urlsplit(url.strip()).hostname or "").rstrip(".")
    except ValueError:
        return ""


def _is_literal(host: str) -> bool:
    """An address written the standard way (127.0.0.1, ::ffff:127.0.0.1): it needs no reading in brackets."""
    try:
        ip_address(host)
    except ValueError:
        return False
    return True


def _default_port(scheme: str) -> int:
    return 443 if scheme.lower() == "https" else 80
