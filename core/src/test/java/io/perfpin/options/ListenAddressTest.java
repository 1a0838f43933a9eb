package io.perfpin.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ListenAddressTest {
    @Test
    void thePortAloneListensOnLoopback() {
        ListenAddress address = ListenAddress.parse("9464", "bad option 'prometheus=9464'");
        assertEquals("127.0.0.1", address.host());
        assertEquals(9464, address.port());
        assertEquals("127.0.0.1:9464", address.toString());
    }

    @Test
    void anyInterfaceOnlyWhenWritten() {
        assertEquals(
                "0.0.0.0",
                ListenAddress.parse("0.0.0.0:9464", "bad address '0.0.0.0:9464'")
                        .host());
        assertEquals(
                "localhost",
                ListenAddress.parse("localhost:1", "bad address 'localhost:1'").host());
        ListenAddress v6 = ListenAddress.parse("[::1]:65535", "bad address '[::1]:65535'");
        assertEquals("[::1]", v6.host());
        assertEquals("::1", v6.hostName());
        assertEquals(65535, v6.port());
    }

    @Test
    void aBadPortOrHostIsOneLineNamingTheTokenAndWhatIsAllowed() {
        for (String bad : new String[] {
            "0",
            "65536",
            "x",
            "",
            "127.0.0.1:",
            "256.1.1.1:80",
            "1.2.3:80",
            "[::1:80",
            "[zz]:80",
            "a b:80",
            "-host:80",
            "::1:80",
            "9464 ",
            "host_name:80"
        }) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> ListenAddress.parse(bad, "bad option 'prometheus=" + bad + "'"),
                    bad);
            assertTrue(e.getMessage().startsWith("bad option 'prometheus=" + bad + "': "), e.getMessage());
            assertTrue(e.getMessage().endsWith(ListenAddress.ALLOWED), e.getMessage());
        }
        assertTrue(
                assertThrows(IllegalArgumentException.class, () -> ListenAddress.parse("70000", "bad address '70000'"))
                        .getMessage()
                        .startsWith("bad address '70000': the port must be a number from 1" + " to 65535"));
    }
}
