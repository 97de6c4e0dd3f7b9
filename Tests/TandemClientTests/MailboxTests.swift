import Testing
import TandemTestSupport

@Suite struct MailboxTests {
    @Test func theTimeoutOfAnAnsweredWaitDoesNotEndALaterWait() async {
        let mailbox = Mailbox<Int>()
        Task { try? await Task.sleep(for: .milliseconds(20)); mailbox.push(1) }
        #expect(await mailbox.next(timeout: .milliseconds(150)) == 1)
        // The first wait's timer fires while this one is still waiting; it must not end it.
        Task { try? await Task.sleep(for: .milliseconds(400)); mailbox.push(2) }
        #expect(await mailbox.next(timeout: .seconds(30)) == 2)
    }

    @Test func aWaitWithNothingToReadEndsAtItsTimeout() async {
        let mailbox = Mailbox<Int>()
        #expect(await mailbox.next(timeout: .milliseconds(20)) == nil)
        mailbox.push(3)
        #expect(await mailbox.next(timeout: .seconds(30)) == 3)
    }
}
