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
                "http://[::1]:4318/custom/path",
                OtlpEndpoint.parse("http://[::1]:4318/custom/path", "bad URL").toString());
    }

    /** A key in a query would show in the options, the stats file and ps: refused, and never shown. */
    @Test
    void aUrlWithAQueryIsRefusedWithItsValuesMasked() {
        String url = "http://collector:4318/v1/metrics?api_key=s3cret";
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> OtlpEndpoint.parse(url, "bad option 'otlp=" + UrlText.maskedUrl(url) + "'"));
        assertTrue(
                e.getMessage().startsWith("bad option 'otlp=http://collector:4318/v1/metrics?api_key=***': a query"),
                e.getMessage());
        assertTrue(!e.getMessage().contains("s3cret"), e.getMessage());
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
            "http://host/v1/metrics?api_key=k",
            "http://host/?",
            "http://[::1]:99999",
            "http://127.0.0.1:65536/v1/metrics",
            "http://host:0",
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

    /** A port out of range is refused as the option is read, not at each export interval. */
    @Test
    void aPortOutOfRangeIsABadOptionNamingTheRange() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> OtlpEndpoint.parse("http://[::1]:99999", "bad option 'otlp=http://[::1]:99999'"));
        assertEquals(
                "bad option 'otlp=http://[::1]:99999': port 99999 is not one from 1 to 65535; expected "
                        + OtlpEndpoint.ALLOWED,
                e.getMessage());
        assertEquals(65535, OtlpEndpoint.parse("http://[::1]:65535", "bad URL").port());
    }
}
