# Build: docker build -t bookcorners-console .
# Run:   docker run -p 8080:8080 -v console-data:/data -e CONSOLE_BACKEND_URL=https://bookcorners.org/api/v1/ bookcorners-console
# The image listens on all interfaces and expects a TLS proxy in front (Secure __Host- cookies,
# HSTS). Tell it the proxy's address with CONSOLE_TRUSTED_PROXY. To try it over plain HTTP on
# this machine only: -p 127.0.0.1:8080:8080 -e CONSOLE_BEHIND_TLS_PROXY=0.
# Metrics (/metrics, Prometheus) listen on the container's loopback unless told otherwise: to scrape
# them from a private network, add -e CONSOLE_METRICS_BIND=0.0.0.0 -p 127.0.0.1:9464:9464 (never publish them).
FROM swift:6.2-bookworm AS build
WORKDIR /build
RUN apt-get update && apt-get install -y --no-install-recommends libsqlite3-dev && rm -rf /var/lib/apt/lists/*
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product console --static-swift-stdlib \
    && mkdir -p /staging && cp "$(swift build -c release --show-bin-path)/console" /staging/

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libsqlite3-0 ca-certificates curl tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home /app --shell /usr/sbin/nologin console \
    && mkdir -p /data /app && chown console /data
WORKDIR /app
COPY --from=build /staging/console /app/console
# Beside the binary, where `console` looks for them whatever its working directory.
COPY Templates /app/Templates
COPY Public /app/Public
USER console
VOLUME ["/data"]
ENV CONSOLE_BIND=0.0.0.0 CONSOLE_PORT=8080 CONSOLE_DATABASE=/data/console.sqlite CONSOLE_BEHIND_TLS_PROXY=1
EXPOSE 8080
# Readiness, not liveness: unhealthy while the database takes no writes or Book Corners has not
# answered for CONSOLE_READINESS_BACKEND_SILENCE seconds (/healthz answers as long as the process does).
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s CMD curl -fsS http://127.0.0.1:8080/readyz || exit 1
# SIGTERM (docker stop) finishes requests in flight and the decision being sent; docker stop's
# default 10 s is less than CONSOLE_SHUTDOWN_GRACE's 20: use docker stop -t 30.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/console", "serve"]
