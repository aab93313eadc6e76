// CoreDNS with only the plugins a test cluster's DNS needs (cluster names
// from the API server, on a loopback address; nothing forwarded outside),
// built from its Go module the way CoreDNS documents for custom builds: the
// directives below, in plugin.cfg's order, replace the full list.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	dnsserver.Directives = []string{"bind", "ready", "errors", "cache", "kubernetes"}
}

func main() { coremain.Run() }
