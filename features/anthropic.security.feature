@server @anthropic @security
Feature: Anthropic Messages under an API key
  With --api-key, /v1/messages and /v1/messages/count_tokens take the key as Anthropic clients send it, in
  x-api-key, or as OpenAI clients do, in Authorization (Bearer); any other request is answered 401
  authentication_error (in the OpenAI error shape, as every refusal of this server). The anthropic SDK
  sends the key in Authorization.

  Background: One slot under a key
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   256 KV cache size
    And   a server api key llama.cpp
    Then  the server is starting

  Scenario Outline: The key in <header> opens both Messages routes
    When these endpoints are called with <credentials>:
      | method | path                       | body                                                                                   |
      | POST   | /v1/messages               | {"model": "claude-bdd", "max_tokens": 2, "messages": [{"role": "user", "content": "Hi"}]} |
      | POST   | /v1/messages/count_tokens  | {"model": "claude-bdd", "messages": [{"role": "user", "content": "Hi"}]}                |
    Then every endpoint answers 200 without an error

    Examples:
      | header        | credentials                      |
      | x-api-key     | the key llama.cpp in X-Api-Key   |
      | Authorization | the key llama.cpp                |

  Scenario Outline: Without a valid key both Messages routes answer 401 (<credentials>)
    When these endpoints are called with <credentials>:
      | method | path                       | body                                                                                   |
      | POST   | /v1/messages               | {"model": "claude-bdd", "max_tokens": 2, "messages": [{"role": "user", "content": "Hi"}]} |
      | POST   | /v1/messages/count_tokens  | {"model": "claude-bdd", "messages": [{"role": "user", "content": "Hi"}]}                |
    Then every endpoint answers 401 authentication_error

    Examples:
      | credentials                     |
      | no key                          |
      | the key wrong-key               |
      | the key wrong-key in X-Api-Key  |
      | an empty key                    |

  Scenario: The anthropic client with the key is answered
    Given a user api key llama.cpp
    And   a model claude-bdd
    And   a user prompt Say hi.
    And   2 max tokens to predict
    When  an Anthropic message is requested with the anthropic client
    Then  the Anthropic answer is a text message
    And   the Anthropic usage counts 2 output tokens
