package notify_test

import (
	"fmt"
	"time"

	"github.com/askcore/askcore/hub/notify"
)

// A receiver checks Askcore-Signature over the raw body, in a window
// around its own clock.
func ExampleVerify() {
	secret := "whsec_example"
	body := []byte(`{"type":"ask.created"}`)
	sent := time.Unix(1_800_000_000, 0)
	header := notify.Sign(secret, sent, body)
	fmt.Println(header)
	fmt.Println(notify.Verify(secret, header, body, sent.Add(time.Minute), 5*time.Minute))
	fmt.Println(notify.Verify(secret, header, body, sent.Add(time.Hour), 5*time.Minute))
	// Output:
	// t=1800000000,v1=fdf238637df3311e54dfa4edd58f9933e5e9163e04c913ff6514a642d2af01cc
	// <nil>
	// hub notify: signature timestamp outside the window
}
