@server @security @requires.api_key_file
Feature: API keys from a file
  --api-key-file reads one key per line; lines starting with "#" and empty lines are skipped, and the
  keys add to those of --api-key. A file that cannot be opened stops the server at start. The README says
  nothing of an empty file: the server then has no key at all and answers everyone, like a server
  started without --api-key (it only logs its usual warning that no API key is set).

  Background: A server
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   256 KV cache size

  Scenario Outline: Keys from the file open the server, comment lines do not: <credentials>
    Given a server API key file with the lines:
      """
      # the team's keys
      first-Key-4711

      #second-Key-0815
      third-Key-1234
      """
    And   the server is starting
    When  these endpoints are called with <credentials>:
      | method | path      | body              |
      | POST   | /tokenize | {"content": "Hi"} |
      | GET    | /props    |                   |
      | GET    | /slots    |                   |
    Then  every endpoint answers <answer>

    Examples:
      | credentials                        | answer                   |
      | the key first-Key-4711             | 200 without an error     |
      | the key third-Key-1234 in X-Api-Key | 200 without an error    |
      | the key #second-Key-0815           | 401 authentication_error |
      | the key second-Key-0815            | 401 authentication_error |
      | the key # the team's keys          | 401 authentication_error |
      | an empty key                       | 401 authentication_error |
      | no key                             | 401 authentication_error |

  Scenario Outline: Keys given both ways are all accepted: <credentials>
    Given a server API key file with the lines:
      """
      file-Key-4711
      """
    And   a server api key flag-Key-0815
    And   the server is starting
    When  these endpoints are called with <credentials>:
      | method | path      | body              |
      | POST   | /tokenize | {"content": "Hi"} |
      | GET    | /props    |                   |
    Then  every endpoint answers <answer>

    Examples:
      | credentials            | answer                   |
      | the key file-Key-4711  | 200 without an error     |
      | the key flag-Key-0815  | 200 without an error     |
      | the key other-Key-0000 | 401 authentication_error |

  Scenario: The health endpoints stay public with a key file
    Given a server API key file with the lines:
      """
      first-Key-4711
      """
    And   the server is starting
    When  these endpoints are called with no key:
      | method | path       |
      | GET    | /health    |
      | GET    | /v1/health |
    Then  every endpoint answers 200 without an error

  # Server behaviour (the README is silent): an empty key file means no key, so the server is open.
  Scenario: An empty key file leaves the server without a key
    Given an empty server API key file
    And   the server is starting
    When  these endpoints are called with no key:
      | method | path      | body              |
      | POST   | /tokenize | {"content": "Hi"} |
      | GET    | /props    |                   |
    Then  every endpoint answers 200 without an error

  Scenario: A key file that cannot be opened stops the server at start
    Given a server API key file that does not exist
    Then  the server refuses to start, saying "failed to open file"
