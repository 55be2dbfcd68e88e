Feature: Interrupted mid-scenario
  Scenario: A run interrupted while a server is up
    Given a server listening on localhost:8080
    And   a model file default
    Then  the server is starting
    Then  the test is told the server pid and waits
