"""The outbound rules: every form of an internal address refused with the rule it breaks, public ones passed, and
what an operator allows."""

from ipaddress import ip_address

import pytest

from papertrail.runtime.outbound import OutboundPolicy, OutboundRefused, address_rule, read_address, url_host

POLICY = OutboundPolicy()

REFUSED_URLS = [
    ("http://127.0.0.1:7700/keys", "127.0.0.1 is a loopback address"),
    ("http://127.8.9.10/", "127.8.9.10 is a loopback address"),
    ("http://localhost:27017/", "localhost is a loopback address"),
    ("http://LOCALHOST./", "localhost is a loopback address"),
    ("http://api.localhost/", "api.localhost is a loopback address"),
    ("http://[::1]/", "::1 is a loopback address"),
    ("http://0.0.0.0/", "0.0.0.0 is the unspecified address"),
    ("http://0.1.2.3/", "0.1.2.3 is a 'this network' address"),
    ("http://[::]/", ":: is the unspecified address"),
    # odd IPv4 forms, read as the resolver reads them
    ("http://2130706433/", "2130706433 (127.0.0.1) is a loopback address"),
    ("http://0x7f.1/", "0x7f.1 (127.0.0.1) is a loopback address"),
    ("http://0x7f000001/", "0x7f000001 (127.0.0.1) is a loopback address"),
    ("http://0177.0.0.1/", "0177.0.0.1 (127.0.0.1) is a loopback address"),
    ("http://127.1/", "127.1 (127.0.0.1) is a loopback address"),
    ("http://10.1/", "10.1 (10.0.0.1) is a private address"),
    ("http://167772161/", "167772161 (10.0.0.1) is a private address"),
    ("http://10.0.0.8/", "10.0.0.8 is a private address"),
    ("http://172.16.5.4/", "172.16.5.4 is a private address"),
    ("http://192.168.1.1/", "192.168.1.1 is a private address"),
    ("http://100.64.0.1/", "100.64.0.1 is a shared (CGNAT) address"),
    ("http://100.127.255.254/", "100.127.255.254 is a shared (CGNAT) address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
    ("http://224.0.0.1/", "224.0.0.1 is a multicast address"),
    ("http://239.255.255.250/", "239.255.255.250 is a multicast address"),
    ("http://240.0.0.1/", "240.0.0.1 is a reserved address"),
    ("http://255.255.255.255/", "255.255.255.255 is a broadcast address"),
    ("http://192.0.2.1/", "192.0.2.1 is a reserved address (documentation)"),
    ("http://198.18.0.1/", "198.18.0.1 is a reserved address (benchmarking)"),
    # IPv6 forms of IPv4 addresses
    ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1 is a loopback address (127.0.0.1 inside an IPv6 address)"),
    ("http://[::ffff:7f00:1]/", "::ffff:7f00:1 is a loopback address (127.0.0.1 inside an IPv6 address)"),
    ("http://[::ffff:169.254.169.254]/", "::ffff:169.254.169.254 is a link-local address (169.254.169.254 inside"),
    ("http://[::127.0.0.1]/", "::127.0.0.1 is a loopback address (127.0.0.1 inside an IPv6 address)"),
    ("http://[64:ff9b::10.0.0.1]/", "64:ff9b::10.0.0.1 is a private address (10.0.0.1 inside an IPv6 address)"),
    ("http://[2002:7f00:1::]/", "2002:7f00:1:: is a loopback address (127.0.0.1 inside an IPv6 address)"),
    ("http://[64:ff9b:1::1]/", "64:ff9b:1::1 is a private address (local NAT64)"),
    ("http://[fc00::1]/", "fc00::1 is a private address (unique local)"),
    ("http://[fd12:3456::1]/", "fd12:3456::1 is a private address (unique local)"),
    ("http://[fe80::1]/", "fe80::1 is a link-local address"),
    ("http://[fe80::1%25eth0]/", "fe80::1%25eth0 is a link-local address"),
    ("http://[ff02::1]/", "ff02::1 is a multicast address"),
    ("http://[2001:db8::1]/", "2001:db8::1 is a reserved address (documentation)"),
    ("http://[2001::1]/", "2001::1 is a reserved address (Teredo)"),
    ("http://[100::1]/", "100::1 is a reserved address (discard only)"),
    ("http://[4000::1]/", "4000::1 is a reserved address"),
    # credentials and schemes
    ("http://user:pass@example.org/hook", "a user name or password in the URL is refused"),
    ("https://token@example.org/hook", "a user name or password in the URL is refused"),
    ("ftp://example.org/hook", "ftp scheme: only http and https URLs are reached"),
    ("file:///etc/passwd", "file scheme: only http and https URLs are reached"),
    ("gopher://example.org:70/", "gopher scheme: only http and https URLs are reached"),
    ("//example.org/hook", "no scheme: only http and https URLs are reached"),
    ("http:///hook", "the URL has no host"),
]


@pytest.mark.parametrize(("url", "rule"), REFUSED_URLS)
def test_internal_addresses_in_every_form_and_credentials_are_refused_naming_the_rule(url: str, rule: str) -> None:
    with pytest.raises(OutboundRefused) as refused:
        POLICY.check_url(url)
    assert str(refused.value).startswith(rule)


@pytest.mark.parametrize(
    ("url", "host", "port"),
    [
        ("https://hooks.example.org/papertrail", "hooks.example.org", 443),
        ("http://Hooks.Example.org:8080/x?y=1", "hooks.example.org", 8080),
        ("http://93.184.215.14/", "93.184.215.14", 80),
        ("http://1572395022/", "1572395022", 80),  # 93.184.215.14 in decimal: public is public in any form
        ("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", 443),
        ("http://[::ffff:93.184.215.14]/", "::ffff:93.184.215.14", 80),
        ("http://[2002:5db8:d70e::1]/", "2002:5db8:d70e::1", 80),  # 6to4 of a public address
        ("http://100.128.0.1/", "100.128.0.1", 80),  # just past the shared block
        ("http://172.32.0.1/", "172.32.0.1", 80),  # just past 172.16/12
        ("http://dead.beef.example/", "dead.beef.example", 80),  # hex-looking labels are still a name
    ],
)
def test_public_addresses_and_names_pass(url: str, host: str, port: int) -> None:
    destination = POLICY.check_url(url)
    assert (destination.host, destination.port) == (host, port)


def test_odd_ipv4_forms_are_read_as_the_resolver_reads_them() -> None:
    for written in ["2130706433", "0x7f.1", "0x7f.0.0.1", "0177.0.0.1", "127.1", "127.0.1", "0x7F000001"]:
        assert read_address(written) == ip_address("127.0.0.1"), written
    assert read_address("example.org") is None
    assert read_address("1.2.3.4.5") is None
    assert read_address("beef") is None  # hex needs 0x: a name


def test_a_public_address_breaks_no_rule() -> None:
    assert address_rule(ip_address("8.8.8.8")) is None
    assert address_rule(ip_address("2001:4860:4860::8888")) is None


def test_the_operator_allows_named_hosts_addresses_and_networks_and_nothing_else() -> None:
    policy = OutboundPolicy.from_setting(" hooks.lab.internal , 127.0.0.1, 10.20.0.0/16,[::1]")
    assert policy.check_url("http://HOOKS.lab.internal:9000/x").host == "hooks.lab.internal"
    policy.check_address("hooks.lab.internal", ip_address("10.9.9.9"))  # the name is allowed whatever it resolves to
    assert policy.check_url("http://127.0.0.1:8123/hook").port == 8123
    assert policy.check_url("http://[::1]/").host == "::1"
    policy.check_address("receiver.example", ip_address("10.20.3.4"))  # in the allowed network
    with pytest.raises(OutboundRefused, match=r"^10\.21\.0\.1 is a private address"):
        policy.check_url("http://10.21.0.1/")
    with pytest.raises(OutboundRefused, match=r"127\.0\.0\.2 is a loopback address"):
        policy.check_url("http://127.0.0.2/")
    with pytest.raises(OutboundRefused, match="localhost is a loopback address"):
        policy.check_url("http://localhost/")  # allowing 127.0.0.1 does not allow every name of it
    with pytest.raises(OutboundRefused, match="user name or password"):
        policy.check_url("http://u:p@hooks.lab.internal/")  # allowed hosts keep the other rules


@pytest.mark.parametrize("entry", ["not a host!", "10.0.0.0/33", "http://x", "a..b"])
def test_a_bad_allowed_entry_is_named(entry: str) -> None:
    with pytest.raises(ValueError, match="is no"):
        OutboundPolicy.from_setting(f"ok.example, {entry}")


def test_a_name_is_refused_when_any_address_it_resolves_to_is() -> None:
    public, loopback = ip_address("93.184.215.14"), ip_address("127.0.0.1")
    assert POLICY.check_resolved("hooks.example.org", [public]) == public
    with pytest.raises(OutboundRefused, match=r"^rebind\.example \(127\.0\.0\.1\) is a loopback address"):
        POLICY.check_resolved("rebind.example", [public, loopback])
    with pytest.raises(OutboundRefused, match="resolves to no address"):
        POLICY.check_resolved("void.example", [])


def test_the_host_of_a_url_as_the_rules_read_it() -> None:
    assert url_host("https://Hooks.Example.org.:8443/a?b") == "hooks.example.org"
    assert url_host("http://[::1]:80/") == "::1"
    assert url_host("not a url") == ""
