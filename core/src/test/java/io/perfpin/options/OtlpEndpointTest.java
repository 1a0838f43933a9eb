package io.perfpin.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OtlpEndpointTest {
    @Test
    void aUrlWithoutAPathGetsOpenTelemetrysMetricsPath() {
        OtlpEndpoint endpoint = OtlpEndpoint.parse("http://127.0.0.1:4318", "bad URL");
        assertEquals("http://127.0.0.1:4318/v1/metrics", endpoint.toString());
        assertEquals(4318, endpoint.port());
        assertEquals(
                "http://collector/v1/metrics",
                OtlpEndpoint.parse("HTTP://collector/", "bad URL").toString());
        assertEquals(80, OtlpEndpoint.parse("http://collector", "bad URL").port());
        assertEquals(
                "http://[::1]:4318/custom/path?x=1",
                OtlpEndpoint.parse("http://[::1]:4318/custom/path?x=1", "bad URL")
                        .toString());
    }

    @Test
    void anythingButAPlainHttpUrlIsOneLineNamingTheTokenAndWhatIsAllowed() {
        for (String bad : new String[] {
            "127.0.0.1:4318",
            "ftp://host/",
            "https://host:4318",
            "http://user:pw@host/",
            "http:///v1/metrics",
            "http://host/#frag",
            "http://ho st/",
            ""
        }) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> OtlpEndpoint.parse(bad, "bad option 'otlp=" + bad + "'"),
                    bad);
            assertTrue(e.getMessage().startsWith("bad option 'otlp=" + bad + "': "), e.getMessage());
            assertTrue(e.getMessage().endsWith(OtlpEndpoint.ALLOWED), e.getMessage());
        }
    }
}
