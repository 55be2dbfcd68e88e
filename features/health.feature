@server @health
Feature: Health
  A llama-server reports itself healthy once its model is loaded, and says so to anyone:
  /health and /v1/health are public endpoints.

  Background: One server with the default model
    Given a server listening on localhost:8080
    And   a model file default
    And   2 slots
    Then  the server is starting

  Scenario: The health endpoint answers ok
    Then the server is healthy
    When a GET request to /health
    Then the response status is 200
    And  the response JSON is {"status": "ok"}

  Scenario: The OpenAI-style health endpoint answers the same
    When a GET request to /v1/health
    Then the response status is 200
    And  the response JSON is {"status": "ok"}

  Scenario: A freshly started server is ready and every slot is idle
    Then the server is ready
    And  the server is idle
    And  all slots are idle

  Scenario: The server stops cleanly on SIGTERM
    Then the server is healthy
    When the server is stopped
