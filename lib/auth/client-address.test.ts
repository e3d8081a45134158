import { describe, expect, it } from "vitest";
import { rateKeyOfAddress } from "./client-address";

describe("rateKeyOfAddress (review F15: one IPv6 subscriber holds a whole /64)", () => {
  it("keys an IPv6 address by its /64, whatever its spelling", () => {
    expect(rateKeyOfAddress("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(rateKeyOfAddress("2001:0db8:0001:0002:ffff:eeee:dddd:cccc")).toBe("2001:db8:1:2::/64");
    expect(rateKeyOfAddress("2001:DB8:1:2:0:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(rateKeyOfAddress("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(rateKeyOfAddress("::1")).toBe("0:0:0:0::/64");
    expect(rateKeyOfAddress("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });

  it("keeps IPv4 addresses (and anything else) as they are", () => {
    expect(rateKeyOfAddress("192.0.2.7")).toBe("192.0.2.7");
    expect(rateKeyOfAddress("not an address")).toBe("not an address");
  });
});
