@server @tls @requires.ssl
Feature: TLS
  With --ssl-key-file and --ssl-cert-file llama-server serves https only. The suite makes a CA and a
  certificate for 127.0.0.1 at run time (trustme) and trusts that CA: the readiness probe, raw HTTP, the
  openai client and every other step then work over https. A build without OpenSSL (cmake
  -DLLAMA_OPENSSL=ON) still lists the flags but refuses to start with them: these scenarios are then
  skipped with that reason.

  Background: A server with a certificate made for this run
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias smollm2
    And   1 slots
    And   256 KV cache size
    And   the server speaks TLS with a certificate made for this run
    Then  the server is starting

  Scenario: The server answers over https with the certificate it was given
    Then the server is reached over https
    And  the server presents the certificate made for this run
    And  a client that does not trust the run's CA refuses the server

  Scenario: Plain http to the TLS port gets no answer
    Then plain http to the server gets no answer

  Scenario: Raw HTTP requests work over https
    When these endpoints are called with no key:
      | method | path                 | body                                                               |
      | GET    | /health              |                                                                    |
      | GET    | /props               |                                                                    |
      | GET    | /v1/models           |                                                                    |
      | POST   | /tokenize            | {"content": "Hi"}                                                  |
      | POST   | /completion          | {"prompt": "Hi", "n_predict": 2}                                   |
      | POST   | /v1/chat/completions | {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2} |
    Then every endpoint answers 200 without an error

  Scenario: The openai client works over https
    When the openai client calls chat completions, completions and models
    Then each openai client call succeeded

  Scenario: The steps of the other features work over https
    Given a prompt Once upon a time
    And   8 max tokens to predict
    And   the request field ignore_eos is true
    And   a completion request with no api error
    Then  8 tokens are predicted
    Given a system prompt You are a test.
    And   a user prompt Say hello.
    And   4 max tokens to predict
    And   an OAI compatible chat completions request with no api error
    Then  4 tokens are predicted
    And   all slots are idle
