@server @metrics
Feature: Metrics endpoint disabled
  Without --metrics, GET /metrics is refused with 501 not_supported_error, and /props says the endpoint is off.

  Scenario: /metrics answers 501 without --metrics
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   256 KV cache size
    Then  the server is starting
    When  a GET request to /metrics
    Then  the response status is 501
    And   the response field error.type is not_supported_error
    When  a GET request to /props
    Then  the response status is 200
    And   the response field endpoint_metrics is false
