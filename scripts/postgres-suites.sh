#!/usr/bin/env bash
# The server suites that keep what they do in the database: scripts/test.sh runs them a second
# time with PARLEY_TEST_DATABASE=postgresql, on a database of their own each on the test
# PostgreSQL. Prints a `swift test --filter` pattern. (ParleyStorageTests runs each test on both
# engines in the first pass.) Suites about the process, the media path or a real SQLite file are not here.
suites=(
  RegistrationTests VerificationTests SessionTests PasswordResetTests PhoneSignInTests ProfileTests UserSearchTests
  FriendsTests FriendsTableTests BlocksEverywhereTests
  ChatTests ChatDeliveryTests UploadTests StoriesTests QuotesTests
  TransactionalEventsTests SendInOneStepTests SendBatchTests RowsFollowTheirParentsTests RealtimeGatewayTests SlowConsumerTests CallSignallingTests
  AdminTests LimitsTests BoundaryTests WireDatesTests
  GroupAdminTests MessageRequestTests PresenceTests EmailChangeTests
)
printf 'ParleyHTTPTests.%s\n' "${suites[@]}" | paste -sd'|' -
