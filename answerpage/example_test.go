package answerpage_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
)

// A Server is a provider: register it, and each question waits on the page
// until the person answers there. Only the URL's token opens the page.
func Example() {
	core := askcore.NewCore(nil)                                // the rules, natively
	srv := answerpage.New(core, answerpage.WithLog(io.Discard)) // no browser unless WithBrowser(true)
	defer srv.Close()
	dispose, err := askcore.NewService(core).Register(srv.Provider())
	if err != nil {
		panic(err)
	}
	defer dispose()

	url, err := srv.Start() // the first Ask starts it too
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.HasPrefix(url, "http://127.0.0.1:"))
	defer http.DefaultClient.CloseIdleConnections()
	for _, u := range []string{url, strings.TrimSuffix(url, "/") + "x/"} {
		resp, err := http.Get(u)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	// Output:
	// true
	// 200
	// 404
}
