import { describe, expect, it } from "vitest";
import { isLoopbackAddress, isPublicAddress } from "./address-ranges";

describe("isPublicAddress", () => {
  it.each(["93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8"])(
    "accepts the public address %s",
    (address) => expect(isPublicAddress(address)).toBe(true),
  );

  it.each([
    "127.0.0.1",
    "127.8.9.10",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "198.18.0.1",
    "::1",
    "::",
    "fe80::1",
    "fd12:3456::1",
    "fc00::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "64:ff9b::a00:1",
    "2002:a00:1::1",
    "2001:db8::1",
    "not-an-ip",
  ])("refuses %s", (address) => expect(isPublicAddress(address)).toBe(false));
});

describe("isLoopbackAddress", () => {
  it("is true for 127/8 and ::1 only", () => {
    expect(isLoopbackAddress("127.0.0.1")).toBe(true);
    expect(isLoopbackAddress("127.1.2.3")).toBe(true);
    expect(isLoopbackAddress("::1")).toBe(true);
    expect(isLoopbackAddress("10.0.0.1")).toBe(false);
    expect(isLoopbackAddress("::2")).toBe(false);
  });
});
