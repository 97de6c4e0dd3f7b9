import TandemWire

/// The browser participant page: `GET /` and its assets under `/page/`, served from the files of
/// `Page/Assets` built into the binary (`embedInCode`: no files on disk at run time, no CDN, works
/// offline). `/client/v1/tandem-sync.mjs` is the web client library (protocol v1 as an ES module any page may
/// import; the path names its protocol version) and `/client/v1/scroll-interpolator.mjs` its smoothing of a
/// followed scroll position, `app.mjs` the product page built on them, `scroll-chrome.js`
/// the nav bar's rule.
///
/// Every response carries a strict Content-Security-Policy (scripts, styles and the WebSocket only
/// from the server's own origin; no inline code, no framing), `nosniff`, `no-referrer`, and
/// `Cache-Control: no-cache` with an ETag, so browsers revalidate cheaply (304) and never run a
/// page older than the server. Anything else is left to the next route (`nil`).
enum PageRoutes {
    /// The policy sent with every page response. `connect-src 'self'` covers `ws:`/`wss:` to the
    /// same host and port (CSP level 3).
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let assets: [String: PageAsset] = {
        let javaScript = "text/javascript; charset=utf-8"
        let list = [
            PageAsset(path: "/", contentType: "text/html; charset=utf-8", body: PageSettings().fill(PackageResources.index_html)),
            PageAsset(path: "/page/app.css", contentType: "text/css; charset=utf-8", body: PackageResources.app_css),
            PageAsset(path: "/page/scroll-chrome.js", contentType: javaScript, body: PackageResources.scroll_chrome_js),
            PageAsset(path: "/client/v1/tandem-sync.mjs", contentType: javaScript, body: PackageResources.tandem_sync_mjs),
            PageAsset(path: "/client/v1/scroll-interpolator.mjs", contentType: javaScript, body: PackageResources.scroll_interpolator_mjs),
            PageAsset(path: "/page/app.mjs", contentType: javaScript, body: PackageResources.app_mjs),
        ]
        return Dictionary(uniqueKeysWithValues: list.map { ($0.path, $0) })
    }()

    /// The response for a page path (200, 304, or 405 for a method other than GET/HEAD), or `nil`
    /// when the path is not part of the page.
    static func respond(to request: HTTPRequest) -> HTTPResponse? {
        guard let asset = assets[request.path] else { return nil }
        var headers: HTTPHeaders = [
            "Cache-Control": "no-cache",
            "ETag": asset.entityTag,
            "Content-Security-Policy": contentSecurityPolicy,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "X-Frame-Options": "DENY",
            "Cross-Origin-Opener-Policy": "same-origin",
        ]
        switch request.method {
        case "GET", "HEAD":
            break
        default:
            headers.add(name: "Allow", value: "GET, HEAD")
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            return HTTPResponse(status: 405, headers: headers, body: Array("method not allowed\n".utf8))
        }
        if request.headers.listElements(for: "If-None-Match").contains(where: { $0 == "*" || $0 == asset.entityTag || $0 == "W/" + asset.entityTag }) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.add(name: "Content-Type", value: asset.contentType)
        if request.method == "HEAD" {
            // The length of the body a GET would get; a HEAD answer carries no body.
            headers.add(name: "Content-Length", value: "\(asset.body.count)")
            return HTTPResponse(status: 200, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers, body: asset.body)
    }
}
